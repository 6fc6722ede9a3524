import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSnapshot, writeSnapshot } from '../../src/modules/identity/index/index-snapshot.js';
import { WatchlistIndex } from '../../src/modules/identity/index/watchlist-index.js';
import { near, randomUnit, seeded } from './vectors.js';

describe('index snapshot', () => {
  it('restores indexes that answer exactly like the originals, and only for the same generation and recognizer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-snap-'));
    const file = join(dir, 'index-snapshot.bin');
    try {
      const rand = seeded(11);
      const a = new WatchlistIndex(128);
      const b = new WatchlistIndex(128);
      for (let i = 0; i < 3000; i++) a.add(`a-${i % 1000}`, randomUnit(128, rand));
      for (let i = 0; i < 10; i++) b.add(`b-${i}`, randomUnit(128, rand));
      a.remove('a-7');
      const indexes = new Map([
        ['alpha', a],
        ['beta', b],
      ]);
      const sizes = new Map([
        ['alpha', 999],
        ['beta', 10],
        ['empty', 0],
      ]);
      writeSnapshot(file, { generation: 42, recognizer: 'rec', sizes, indexes });

      const { snapshot } = readSnapshot(file, { generation: 42, recognizer: 'rec' });
      assert.ok(snapshot);
      assert.deepEqual([...snapshot.sizes], [...sizes]);
      const a2 = snapshot.indexes.get('alpha')!;
      assert.equal(a2.samples, a.samples);
      assert.equal(a2.identities, a.identities);
      for (let q = 0; q < 20; q++) {
        const query = near(randomUnit(128, rand), 0.3, rand);
        for (const exactMax of [Infinity, 0]) {
          assert.deepEqual(a2.search(query, { topK: 5, rerank: 64, exactMax }), a.search(query, { topK: 5, rerank: 64, exactMax }));
        }
      }
      // The restored index keeps working: add and remove.
      a2.add('new', randomUnit(128, rand));
      assert.equal(a2.remove('a-1'), 3);
      assert.equal(a2.identities, a.identities);

      assert.match(readSnapshot(file, { generation: 43, recognizer: 'rec' }).reason, /generation 42, database at 43/);
      assert.match(readSnapshot(file, { generation: 42, recognizer: 'other' }).reason, /made for rec/);
      writeFileSync(file, readFileSync(file).subarray(0, 5000));
      const cut = readSnapshot(file, { generation: 42, recognizer: 'rec' });
      assert.equal(cut.snapshot, null);
      assert.match(cut.reason, /bytes|truncated/);
      assert.equal(readSnapshot(join(dir, 'none.bin'), { generation: 0, recognizer: 'rec' }).snapshot, null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
