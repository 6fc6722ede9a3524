import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WatchlistIndex } from '../../src/modules/identity/index/watchlist-index.js';
import { topCandidates } from '../../src/modules/identity/index/top-candidates.js';
import { near, randomUnit, seeded } from './vectors.js';

function bruteForce(rows: Map<string, Float32Array[]>, q: Float32Array): { id: string; score: number }[] {
  const out: { id: string; score: number }[] = [];
  for (const [id, samples] of rows) {
    let best = -Infinity;
    for (const s of samples) {
      let d = 0;
      for (let j = 0; j < q.length; j++) d += s[j]! * q[j]!;
      best = Math.max(best, d);
    }
    out.push({ id, score: best });
  }
  return out.sort((a, b) => b.score - a.score);
}

describe('watchlist index', () => {
  it('topCandidates returns the k largest, best first', () => {
    const s = Float32Array.from([0.1, 0.9, -0.3, 0.5, 0.9, 0.2]);
    assert.deepEqual(Array.from(topCandidates(s, 3)), [1, 4, 3]);
    assert.deepEqual(Array.from(topCandidates(s, 10)), [1, 4, 3, 5, 0, 2]);
    assert.equal(topCandidates(s, 0).length, 0);
  });

  it('after random adds and deletes, exact and int8 searches agree with brute force', () => {
    const rand = seeded(42);
    const dim = 128;
    const index = new WatchlistIndex(dim, 8);
    const truth = new Map<string, Float32Array[]>();
    for (let op = 0; op < 4000; op++) {
      const r = rand();
      if (r < 0.8 || truth.size === 0) {
        // New identity, or one more sample of an existing one.
        const id = r < 0.6 || truth.size === 0 ? `id-${op}` : [...truth.keys()][Math.floor(rand() * truth.size)]!;
        const v = randomUnit(dim, rand);
        index.add(id, v);
        truth.set(id, [...(truth.get(id) ?? []), v]);
      } else {
        const id = [...truth.keys()][Math.floor(rand() * truth.size)]!;
        assert.equal(index.remove(id), truth.get(id)!.length);
        truth.delete(id);
      }
    }
    assert.equal(index.identities, truth.size);
    assert.equal(
      index.samples,
      [...truth.values()].reduce((n, s) => n + s.length, 0),
    );
    const ids = [...truth.keys()];
    for (let q = 0; q < 40; q++) {
      const target = truth.get(ids[Math.floor(rand() * ids.length)]!)!;
      const query = near(target[0]!, 0.5, rand);
      const expected = bruteForce(truth, query).slice(0, 5);
      for (const exactMax of [Infinity, 0]) {
        const { hits, mode } = index.search(query, { topK: 5, rerank: 64, exactMax });
        assert.equal(mode, exactMax === 0 ? 'int8' : 'exact');
        assert.deepEqual(
          hits.map((h) => h.identityId),
          expected.map((e) => e.id),
          `${mode} query ${q}`,
        );
        hits.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i]!.score) < 1e-5));
      }
    }
  });

  it('an identity with many samples cannot crowd others out of top_k', () => {
    const rand = seeded(3);
    const index = new WatchlistIndex(16);
    const base = randomUnit(16, rand);
    for (let i = 0; i < 200; i++) index.add('crowd', near(base, 0.99, rand));
    for (let i = 0; i < 10; i++) index.add(`other-${i}`, near(base, 0.7, rand));
    const { hits } = index.search(base, { topK: 5, rerank: 8, exactMax: Infinity });
    assert.equal(hits.length, 5);
    assert.equal(hits[0]!.identityId, 'crowd');
    assert.equal(new Set(hits.map((h) => h.identityId)).size, 5);
  });

  it('rescore decides the final scores and order; removed identities are never returned', () => {
    const rand = seeded(9);
    const index = new WatchlistIndex(32);
    const a = randomUnit(32, rand);
    index.add('a', a);
    index.add('b', near(a, 0.9, rand));
    const res = index.search(a, { topK: 2, rerank: 4, exactMax: Infinity, rescore: (q, row) => (1 + q.reduce((s, v, j) => s + v * row[j]!, 0)) / 2 });
    assert.equal(res.hits[0]!.identityId, 'a');
    assert.ok(Math.abs(res.hits[0]!.score - 1) < 1e-5);
    index.remove('a');
    assert.deepEqual(
      index.search(a, { topK: 2, rerank: 4, exactMax: Infinity }).hits.map((h) => h.identityId),
      ['b'],
    );
    assert.equal(index.scoreIdentity('a', a), null);
  });

  it('rejects non-finite embeddings instead of poisoning every scan', () => {
    const index = new WatchlistIndex(16);
    const bad = new Float32Array(16);
    bad[3] = NaN;
    assert.throws(() => index.add('x', bad), /non-finite/);
    assert.equal(index.samples, 0);
  });
});
