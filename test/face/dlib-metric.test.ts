// dlib's metric on the unit sphere (issue 21): the commercial profile's recognizer compares raw
// descriptors by Euclidean distance, as dlib trained it, through a lift that galleries and the
// 1:N index can still compare by dot product.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DLIB_CENTRE, DLIB_LIFT_RADIUS, DLIB_LIFTED_DIM, liftDescriptor, unliftDescriptor } from '../../src/modules/face/dlib-metric.js';
import { cosine, EMBEDDING_SPACES, l2normalize } from '../../src/modules/face/face-recognizer.js';

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const dist = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(s);
};
/** A descriptor `r` away from the centre in a direction drawn from `rand`. */
function near(rand: () => number, r: number): Float32Array {
  const dir = Array.from(DLIB_CENTRE, () => rand() - 0.5);
  const n = Math.hypot(...dir);
  return Float32Array.from(DLIB_CENTRE, (c, i) => c + (r * dir[i]!) / n);
}
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe("dlib's Euclidean metric as a unit embedding", () => {
  it('lifts a descriptor to a 144-D unit vector the index can hold, and back', () => {
    const d = near(lcg(1), 0.6);
    const e = liftDescriptor(d);
    assert.equal(e.length, DLIB_LIFTED_DIM);
    assert.equal(DLIB_LIFTED_DIM % 16, 0);
    assert.ok(Math.abs(dot(e, e) - 1) < 1e-6, `norm^2 ${dot(e, e)}`);
    assert.ok(e.subarray(129).every((v) => v === 0));
    const back = unliftDescriptor(e);
    assert.ok(dist(back, d) < 1e-5, `round trip off by ${dist(back, d)}`);
    // The recognizer's own output goes through it, under a space name of its own (stale samples of the old space).
    assert.equal(EMBEDDING_SPACES.face_rec_dlib_resnet_128d!.toUnit(d).length, DLIB_LIFTED_DIM);
    assert.notEqual(EMBEDDING_SPACES.face_rec_dlib_resnet_128d!.name, 'face_rec_dlib_resnet_128d');
  });

  it('scores by distance where the normalised cosine only sees direction (guards the norm-blind score)', () => {
    // b points the same way as a but is shorter; c points elsewhere yet is nearer to a.
    const rand = lcg(7);
    const a = near(rand, 0.6);
    const b = Float32Array.from(a, (v) => v * 0.75);
    const c = Float32Array.from(a, (v) => v + (rand() - 0.5) * 0.05);
    assert.ok(dist(a, c) < dist(a, b), 'c is the nearer in distance');
    assert.ok(cosine(l2normalize(a), l2normalize(b)) > cosine(l2normalize(a), l2normalize(c)), 'the normalised cosine prefers b');
    assert.ok(cosine(liftDescriptor(a), liftDescriptor(c)) > cosine(liftDescriptor(a), liftDescriptor(b)), 'the lift prefers c, as the distance does');
  });

  it('orders pairs of descriptors at the spread of real faces as their Euclidean distance does', () => {
    // Descriptors 0.45-0.75 from the centre (the shared faces sit at 0.49-0.69): the lift's
    // cosine is 1 - 2|x-y|^2 / ((1+|x|^2)(1+|y|^2)), so pairs whose distances differ by more
    // than the (1+|x|^2) factors' 3% keep their order.
    const rand = lcg(42);
    const ds = Array.from({ length: 40 }, () => near(rand, 0.45 + 0.3 * rand()));
    const es = ds.map((d) => liftDescriptor(d));
    const pairs: { d: number; s: number }[] = [];
    for (let i = 0; i < ds.length; i++) for (let j = i + 1; j < ds.length; j++) pairs.push({ d: dist(ds[i]!, ds[j]!), s: cosine(es[i]!, es[j]!) });
    let checked = 0;
    for (let i = 0; i < pairs.length; i += 7) {
      for (let j = i + 1; j < pairs.length; j += 5) {
        const [p, q] = [pairs[i]!, pairs[j]!];
        if (Math.abs(p.d - q.d) < 0.03 * Math.max(p.d, q.d)) continue;
        assert.equal(p.s > q.s, p.d < q.d, `distances ${p.d} / ${q.d}, lifted cosines ${p.s} / ${q.s}`);
        checked++;
      }
    }
    assert.ok(checked > 1000, `${checked} pair comparisons`);
    // Exactly the stereographic identity.
    const [x, y] = [ds[0]!, ds[1]!].map((d) => Float32Array.from(d, (v, i) => (v - DLIB_CENTRE[i]!) / DLIB_LIFT_RADIUS));
    const want = 1 - (2 * dist(x!, y!) ** 2) / ((1 + dot(x!, x!)) * (1 + dot(y!, y!)));
    assert.ok(Math.abs(cosine(es[0]!, es[1]!) - want) < 1e-6);
  });
});
