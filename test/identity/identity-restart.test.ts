import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertErrorShape, testApp } from '../helpers/app.js';
import { spawnDaemon } from '../helpers/daemon.js';
import { enroll, identify, person, watchlists } from './helpers.js';

describe('identity: persistence across restart and a change of recognizer', () => {
  it('everything enrolled survives a restart; samples of another recognizer are reported, not searched, and re-enrolment fixes them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-id-restart-'));
    try {
      // 1. Enrol with the 128-D MobileFaceNet recognizer.
      let t = await testApp({ face: { enable_liveness: false, recognizer: 'mobilefacenet_128d' } }, {}, dataDir);
      assert.equal((await enroll(t.app, person('bbt_penny', 'penny1.png'), { label: 'Penny', identity_id: 'penny', metadata: '{"floor":3}' })).statusCode, 200);
      assert.equal((await enroll(t.app, person('bbt_penny', 'penny2.png'), { label: 'Penny', identity_id: 'penny' })).statusCode, 200);
      assert.equal((await enroll(t.app, person('bbt_leonard', 'leonard1.png'), { label: 'Leonard', identity_id: 'leonard', watchlist_name: 'staff' })).statusCode, 200);
      const before = await watchlists(t.app);
      await t.close();

      // 2. Same recognizer after a restart: same sizes, same matches.
      t = await testApp({ face: { enable_liveness: false, recognizer: 'mobilefacenet_128d' } }, {}, dataDir);
      assert.deepEqual(await watchlists(t.app), before);
      assert.deepEqual(before.default, { name: 'default', size: 1, samples: 2, stale_samples: 0 });
      const m = (await identify(t.app, person('bbt_penny', 'penny3.png'))).json().matches;
      assert.equal(m[0]?.identity_id, 'penny');
      assert.deepEqual(m[0]?.metadata, { floor: 3 });
      assert.equal((await identify(t.app, person('bbt_leonard', 'leonard2.png'), { watchlist_name: 'staff' })).json().matches[0]?.identity_id, 'leonard');
      await t.close();

      // 3. Another recognizer (512-D): the stored samples are detected as stale and reported.
      t = await testApp({ face: { enable_liveness: false, recognizer: 'faceplugin_512d' } }, {}, dataDir);
      assert.deepEqual(await watchlists(t.app), {
        default: { name: 'default', size: 1, samples: 0, stale_samples: 2 },
        staff: { name: 'staff', size: 1, samples: 0, stale_samples: 1 },
      });
      const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.match(health.details.identity, /3 samples from another recognizer \(face_rec_mobilefacenet_128d\) are not searchable/);
      const stale = (await t.app.inject({ method: 'GET', url: '/api/v1/identity/stale' })).json();
      assert.equal(stale.recognizer, 'face_rec_faceplugin_512d');
      assert.equal(stale.stale_samples, 3);
      assert.deepEqual(stale.identities.map((i: { identity_id: string; stale_samples: number; searchable_samples: number }) => [i.identity_id, i.stale_samples, i.searchable_samples]).sort(), [
        ['leonard', 1, 0],
        ['penny', 2, 0],
      ]);
      assert.deepEqual((await identify(t.app, person('bbt_penny', 'penny3.png'))).json().matches, [], 'stale samples are never compared');

      // Re-enrolment path: a new photo under the same identity_id, then purge the old samples.
      const re = await enroll(t.app, person('bbt_penny', 'penny1.png'), { label: 'Penny', identity_id: 'penny' });
      assert.equal(re.json().samples, 3);
      assert.equal((await identify(t.app, person('bbt_penny', 'penny2.png'))).json().matches[0]?.identity_id, 'penny');
      const purge = await t.app.inject({ method: 'DELETE', url: '/api/v1/identity/stale' });
      assert.deepEqual(purge.json(), { removed_samples: 3, removed_identities: 1 });
      assert.deepEqual(await watchlists(t.app), {
        default: { name: 'default', size: 1, samples: 1, stale_samples: 0 },
        staff: { name: 'staff', size: 0, samples: 0, stale_samples: 0 },
      });
      assertErrorShape((await t.app.inject({ method: 'DELETE', url: '/api/v1/watchlist/leonard' })).json(), 404, 'IDENTITY_NOT_FOUND');
      await t.close();

      // 4. And that state, too, is what a restart finds.
      t = await testApp({ face: { enable_liveness: false, recognizer: 'faceplugin_512d' } }, {}, dataDir);
      assert.deepEqual((await watchlists(t.app)).default, { name: 'default', size: 1, samples: 1, stale_samples: 0 });
      assert.deepEqual((await t.app.inject({ method: 'GET', url: '/api/v1/identity/stale' })).json().stale_samples, 0);
      await t.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('identity: index snapshot and kill -9 of the daemon', () => {
  it('a clean stop leaves a snapshot the next start loads; after kill -9 the start rebuilds from LMDB with every acknowledged enrolment', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-id-kill-'));
    try {
      let t = await testApp({ face: { enable_liveness: false } }, {}, dataDir);
      assert.equal(t.app.identity.loadedFrom, 'database');
      assert.equal((await enroll(t.app, person('bbt_raj', 'raj1.png'), { label: 'Raj', identity_id: 'raj' })).statusCode, 200);
      await t.close();
      t = await testApp({ face: { enable_liveness: false } }, {}, dataDir);
      assert.equal(t.app.identity.loadedFrom, 'snapshot', 'clean stop wrote a snapshot matching the database');
      assert.equal((await identify(t.app, person('bbt_raj', 'raj2.png'))).json().matches[0]?.identity_id, 'raj');
      await t.close();

      // The real daemon enrols over HTTP and is killed with SIGKILL right after the responses.
      // Three enrolments at once: a queue, so admission control (2 at a time by default) does not refuse one.
      const daemon = await spawnDaemon({ VIGIL_DATA_DIR: dataDir, VIGIL_FACE_ENABLE_LIVENESS: 'false', VIGIL_LOG_LEVEL: 'warn', VIGIL_LIMITS_INFERENCE_QUEUE: '4' });
      const form = (file: Buffer, fields: Record<string, string>) => {
        const fd = new FormData();
        fd.set('image', new Blob([new Uint8Array(file)]), 'face.png');
        for (const [k, v] of Object.entries(fields)) fd.set(k, v);
        return fd;
      };
      const acked: string[] = [];
      await Promise.all(
        // penny3.png scores under the default quality gate (23.4 < 30), so it is not used here.
        ['penny1.png', 'penny2.png', 'penny4.png'].map(async (f, i) => {
          const res = await fetch(`${daemon.url}/api/v1/watchlist/enroll`, { method: 'POST', body: form(person('bbt_penny', f), { label: 'Penny', identity_id: `penny-${i}` }) });
          assert.equal(res.status, 200, await res.text());
          acked.push(`penny-${i}`);
        }),
      );
      daemon.proc.kill('SIGKILL');
      assert.equal((await daemon.exited).signal, 'SIGKILL');

      t = await testApp({ face: { enable_liveness: false } }, {}, dataDir);
      assert.equal(t.app.identity.loadedFrom, 'database', 'the snapshot no longer matches the database');
      assert.deepEqual((await watchlists(t.app)).default, { name: 'default', size: 4, samples: 4, stale_samples: 0 });
      for (const id of acked) assert.ok(t.app.identity.identity(id), `${id} acknowledged but lost`);
      assert.equal((await identify(t.app, person('bbt_penny', 'penny4.png'))).json().matches[0]?.label, 'Penny');
      await t.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
