// face.profile: commercial (issue 21): a stack of permissively licensed models only, and
// /admin/models saying for each model and for the active stack whether commercial use is cleared.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { modelManifest } from '../../src/runtime/model-manifest.js';
import { testApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';
import { enroll, identify } from '../identity/helpers.js';

const file = (...p: string[]) => readFileSync(testdata('faces', ...p));

describe('face.profile: commercial', () => {
  it('fills the unset face settings with cleared models (guards a profile that still loads SCRFD)', () => {
    const c = loadConfig({ env: {}, overrides: { face: { profile: 'commercial' } } });
    assert.equal(c.face.detector, 'yunet');
    assert.equal(c.face.recognizer, 'dlib_resnet_128d');
    assert.equal(c.face.det_thresh, 0.9);
    assert.equal(c.face.enable_demographics, false);
    for (const name of ['face_det_yunet', 'face_rec_dlib_resnet_128d', 'antispoof_minifasnet_v2', 'antispoof_minifasnet_v1se']) {
      assert.equal(modelManifest().get(name)?.commercial_use, true, name);
    }
  });

  it('refuses a non-cleared model chosen beside it, naming the setting (guards a silent override)', () => {
    assert.throws(
      () => loadConfig({ env: { VIGIL_FACE_PROFILE: 'commercial', VIGIL_FACE_DETECTOR: 'scrfd_500m' }, overrides: { face: { recognizer: 'faceplugin_512d' } } }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const paths = err.problems.map((p) => p.path).sort();
        assert.deepEqual(paths, ['face.detector', 'face.recognizer']);
        return true;
      },
    );
    // An explicit det_thresh is the operator's to choose.
    assert.equal(loadConfig({ env: {}, overrides: { face: { profile: 'commercial', det_thresh: 0.8 } } }).face.det_thresh, 0.8);
  });

  it('the default profile is not cleared, and /admin/models says which models block it', async () => {
    const t = await testApp({});
    try {
      const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as {
        name: string;
        reason?: string;
        commercial_use?: boolean;
        models?: { name: string; commercial_use: boolean }[];
      }[];
      const det = models.find((m) => m.name === 'face_detector')!;
      assert.equal(det.commercial_use, false);
      assert.match(det.reason!, /NOT cleared for commercial use: .*face_det_scrfd_500m.*face_rec_faceplugin_512d/);
    } finally {
      await t.close();
    }
  });

  it('runs end to end: a face on every identity photo it is given, none on noface/, a genuine pair matched', async () => {
    const t = await testApp({ face: { profile: 'commercial' } });
    try {
      const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as {
        name: string;
        loaded: boolean;
        reason?: string;
        commercial_use?: boolean;
        models?: { name: string; commercial_use: boolean; license: string }[];
      }[];
      const det = models.find((m) => m.name === 'face_detector')!;
      assert.equal(det.commercial_use, true);
      assert.match(det.reason!, /^face stack cleared for commercial use/);
      const rec = models.find((m) => m.name === 'face_recognizer')!;
      assert.equal(rec.models![0]!.name, 'face_rec_dlib_resnet_128d');
      assert.match(rec.models![0]!.license, /public domain/);
      // dlib's chip is fitted on MediaPipe landmarks: that model is part of the cleared stack too.
      assert.deepEqual(
        rec.models!.slice(1).map((m) => [m.name, m.commercial_use]),
        [['face_landmarks_v2_478', true]],
      );
      assert.equal(models.find((m) => m.name === 'demographics')!.loaded, false);
      for (const f of ['opencv_board.jpg', 'opencv_stuff.jpg']) {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/detect', ...multipart([{ name: 'image', file: file('noface', f) }]) });
        assert.equal(res.json().count, 0, f);
      }
      const v = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        ...multipart([
          { name: 'image1', file: file('identities', 'bbt_sheldon', 'sheldon1.png') },
          { name: 'image2', file: file('identities', 'bbt_sheldon', 'sheldon2.png') },
        ]),
      });
      assert.equal(v.statusCode, 200);
      const other = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        ...multipart([
          { name: 'image1', file: file('identities', 'bbt_sheldon', 'sheldon1.png') },
          { name: 'image2', file: file('identities', 'bbt_penny', 'penny1.png') },
        ]),
      });
      assert.ok(v.json().similarity > other.json().similarity, `genuine ${v.json().similarity} vs impostor ${other.json().similarity}`);
      assert.equal(other.json().is_match, false);
    } finally {
      await t.close();
    }
  });

  it("ranks by dlib's metric: the genuine pairs the norm-blind cosine put below an impostor pair, and 1:N in the lifted space", async () => {
    const t = await testApp({ face: { profile: 'commercial' } });
    try {
      const verify = async (a: Buffer, b: Buffer) => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/verify',
          ...multipart([
            { name: 'image1', file: a },
            { name: 'image2', file: b },
          ]),
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json().similarity as number;
      };
      const leonard = (n: number) => file('identities', 'bbt_leonard', `leonard${n}.png`);
      // The cosine of L2-normalised descriptors on bilinear chips scored these two genuine pairs
      // 0.9194 and 0.9210 and this impostor pair 0.9211 (raw): the ordering that kept the profile
      // below "every genuine pair above every impostor" on the identity photos.
      const impostor = await verify(file('identities', 'bbt_raj', 'raj5.png'), file('identities', 'fr_alex_lacamoire', 'alex-lacamoire.png'));
      for (const other of [4, 5]) {
        const genuine = await verify(leonard(3), leonard(other));
        assert.ok(genuine > impostor, `leonard3 ~ leonard${other} ${genuine} vs raj5 ~ alex-lacamoire ${impostor}`);
      }
      // Galleries hold the lifted 144-D embedding, tagged with its own space.
      for (const [id, image] of [
        ['leonard', leonard(2)],
        ['raj', file('identities', 'bbt_raj', 'raj1.png')],
      ] as const) {
        const res = await enroll(t.app, image, { identity_id: id, label: id });
        assert.equal(res.statusCode, 200, res.body);
      }
      // A low threshold lists both identities: the index must rank the right one first.
      const hit = await identify(t.app, leonard(4), { threshold: '0.01' });
      assert.equal(hit.statusCode, 200, hit.body);
      assert.deepEqual(
        (hit.json().matches as { identity_id: string }[]).map((m) => m.identity_id),
        ['leonard', 'raj'],
      );
      const stale = (await t.app.inject({ method: 'GET', url: '/api/v1/identity/stale' })).json() as { recognizer: string };
      assert.equal(stale.recognizer, 'face_rec_dlib_resnet_128d+euclidean-lift');
    } finally {
      await t.close();
    }
  });
});
