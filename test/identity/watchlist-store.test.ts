import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { embeddingFromBytes, WatchlistStore } from '../../src/modules/identity/watchlist-store.js';
import { randomUnit } from './vectors.js';

const MODEL = 'face_rec_mobilefacenet_128d';

/** Every identity has exactly the samples its record counts, and every sample an identity. */
function assertConsistent(store: WatchlistStore): Map<string, number> {
  const perIdentity = new Map<string, number>();
  for (const { key, value } of store.samples()) {
    perIdentity.set(key[1], (perIdentity.get(key[1]) ?? 0) + 1);
    assert.equal(value.embedding.byteLength, 128 * 4);
    const rec = store.identity(key[1]);
    assert.ok(rec, `sample ${key.join('/')} has no identity record`);
    assert.equal(rec.watchlist, key[0]);
  }
  for (const rec of store.identities()) assert.equal(perIdentity.get(rec.identity_id), rec.samples, `identity ${rec.identity_id}`);
  return perIdentity;
}

describe('watchlist store (LMDB)', () => {
  it('keeps identities, samples, embeddings and model names across close and reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-wl-'));
    try {
      let store = new WatchlistStore(dir);
      store.open();
      const e1 = randomUnit(128);
      const e2 = randomUnit(128);
      await store.addSamples({ identityId: 'p1', label: 'Ada', watchlist: 'vip', metadata: { badge: 7 }, samples: [{ embedding: e1, model: MODEL, source: 'enroll', quality: 80 }] }, () => {});
      const second = await store.addSamples(
        { identityId: 'p1', label: 'Ada L.', watchlist: 'vip', metadata: undefined, samples: [{ embedding: e2, model: 'other_model', source: 'enroll', quality: null }] },
        () => {},
      );
      assert.ok(second.ok && !second.created && second.identity.samples === 2);
      const conflict = await store.addSamples(
        { identityId: 'p1', label: 'x', watchlist: 'default', metadata: undefined, samples: [{ embedding: e1, model: MODEL, source: 'enroll', quality: null }] },
        () => {
          assert.fail('apply must not run for a conflict');
        },
      );
      assert.equal(conflict.ok, false);
      await store.close();

      store = new WatchlistStore(dir);
      store.open();
      const rec = store.identity('p1')!;
      assert.equal(rec.label, 'Ada L.');
      assert.deepEqual(rec.metadata, { badge: 7 });
      assert.deepEqual(store.watchlistNames(), ['vip']);
      const samples = store.samplesOf(rec);
      assert.deepEqual(
        samples.map((s) => s.value.model),
        [MODEL, 'other_model'],
      );
      assert.deepEqual(Array.from(embeddingFromBytes(samples[0]!.value.embedding)), Array.from(e1));
      const removed = await store.removeIdentity('p1', () => {});
      assert.equal(removed?.samples, 2);
      assert.equal(store.identity('p1'), undefined);
      assert.equal([...store.samples()].length, 0);
      assert.equal(await store.removeIdentity('p1', () => {}), undefined);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('kill -9 during enrolment loses nothing that was acknowledged and leaves no half-written identity', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-wl-kill-'));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/identity/fixtures/enroll-writer.ts', dir], { cwd: packageRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
      const acked = new Map<string, number>();
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      let buf = '';
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_c, s) => resolve(s)));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`writer too slow: ${acked.size} acks\n${err}`)), 60_000);
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          const lines = buf.split('\n');
          buf = lines.pop()!;
          for (const l of lines) {
            const [, id, n] = l.split(' ');
            acked.set(id!, Number(n));
          }
          if (acked.size >= 300) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');

      const store = new WatchlistStore(dir);
      store.open();
      const counts = assertConsistent(store);
      for (const [id, n] of acked) assert.equal(counts.get(id), n, `acknowledged identity ${id} lost or changed`);
      assert.ok(counts.size >= acked.size);
      // The reopened database takes new writes.
      const more = await store.addSamples(
        { identityId: 'after', label: 'after', watchlist: 'even', metadata: undefined, samples: [{ embedding: randomUnit(128), model: MODEL, source: 'enroll', quality: null }] },
        () => {},
      );
      assert.ok(more.ok);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
