import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp } from '../helpers/app.js';
import { testdata } from '../helpers/paths.js';
import { enroll, identify, person, watchlists } from './helpers.js';

/** Every photo of the bbt_* identities (tight crops: quick to analyse). */
function photos(): Buffer[] {
  const out: Buffer[] = [];
  for (const id of readdirSync(testdata('faces', 'identities')).filter((d) => d.startsWith('bbt_'))) {
    for (const f of readdirSync(testdata('faces', 'identities', id))) out.push(person(id, f));
  }
  return out;
}

describe('identity: concurrent enrol / identify / delete', () => {
  it('hundreds of interleaved operations leave exact counts in memory and on disk', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-id-conc-'));
    try {
      // Quality gating is off: two of the bbt photos score under quality_gate, and this test
      // is about counts under concurrency, not about which photos may be enrolled.
      // Hundreds of requests at once test the store, not admission control: no 503 BUSY here.
      const limits = { inference_queue: 1000, queue_wait_ms: 600_000 };
      let t = await testApp({ face: { enable_liveness: false }, identity: { enforce_quality: false }, limits } as never, {}, dataDir);
      const imgs = photos();
      const img = (i: number) => imgs[i % imgs.length]!;
      // Phase 1: 100 identities enrolled all at once.
      const first = await Promise.all(Array.from({ length: 100 }, (_, i) => enroll(t.app, img(i), { label: `P${i}`, identity_id: `c-${i}`, watchlist_name: i % 2 ? 'odd' : 'even' })));
      assert.deepEqual(
        first.map((r) => r.statusCode),
        Array(100).fill(200),
      );

      // Phase 2, interleaved: 100 more samples for c-0..c-49, 100 identifies, deletes of c-50..c-99,
      // and 50 enrolments of new identities n-0..n-49.
      const ops: (() => Promise<{ statusCode: number }>)[] = [];
      for (let i = 0; i < 100; i++) ops.push(() => enroll(t.app, img(i + 7), { label: `P${i % 50}`, identity_id: `c-${i % 50}`, watchlist_name: (i % 50) % 2 ? 'odd' : 'even' }));
      for (let i = 0; i < 100; i++) ops.push(() => identify(t.app, img(i + 3), { watchlist_name: i % 2 ? 'odd' : 'even', threshold: '0', top_k: '3' }));
      for (let i = 50; i < 100; i++) ops.push(() => t.app.inject({ method: 'DELETE', url: `/api/v1/watchlist/c-${i}` }));
      for (let i = 0; i < 50; i++) ops.push(() => enroll(t.app, img(i + 11), { label: `N${i}`, identity_id: `n-${i}`, watchlist_name: 'new' }));
      // A fixed shuffle so the interleaving is the same on every run.
      let seed = 12345;
      for (let i = ops.length - 1; i > 0; i--) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const j = seed % (i + 1);
        [ops[i], ops[j]] = [ops[j]!, ops[i]!];
      }
      const results = await Promise.all(ops.map((op) => op()));
      assert.equal(ops.length, 300);
      assert.deepEqual(
        results.filter((r) => r.statusCode !== 200),
        [],
        'every operation succeeded',
      );

      const expected = {
        even: { name: 'even', size: 25, samples: 75, stale_samples: 0 },
        odd: { name: 'odd', size: 25, samples: 75, stale_samples: 0 },
        new: { name: 'new', size: 50, samples: 50, stale_samples: 0 },
        default: { name: 'default', size: 0, samples: 0, stale_samples: 0 },
      };
      assert.deepEqual(await watchlists(t.app), expected);
      const stored = [...t.app.identity.store.identities()];
      assert.equal(stored.length, 100);
      for (let i = 0; i < 50; i++) assert.equal(t.app.identity.store.identity(`c-${i}`)?.samples, 3);
      for (let i = 50; i < 100; i++) assert.equal(t.app.identity.store.identity(`c-${i}`), undefined);
      assert.equal([...t.app.identity.store.samples()].length, 200);
      await t.close();

      // What was acknowledged is what a restart loads.
      t = await testApp({ face: { enable_liveness: false }, identity: { enforce_quality: false }, limits } as never, {}, dataDir);
      assert.deepEqual(await watchlists(t.app), expected);
      await t.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
