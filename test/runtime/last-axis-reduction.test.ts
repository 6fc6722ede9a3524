import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reduceLastAxis } from '../../src/runtime/last-axis-reduction.js';

describe('last-axis reduction', () => {
  it('gives every row its argmax (the first of ties), maximum and kept columns', () => {
    // Two rows of four: [0.1, 0.7, 0.7, 0.2] and [0.9, 0, 0.05, 0.05].
    const data = Float32Array.from([0.1, 0.7, 0.7, 0.2, 0.9, 0, 0.05, 0.05]);
    const r = reduceLastAxis(data, [1, 2, 4], [3, 0]);
    assert.equal(r.rows, 2);
    assert.deepEqual(Array.from(r.argmax), [1, 0]);
    assert.deepEqual(Array.from(r.max), [Math.fround(0.7), Math.fround(0.9)]);
    assert.deepEqual(Array.from(r.kept), [0.2, 0.1, 0.05, 0.9].map(Math.fround));
  });

  it('refuses kept indices outside the last axis', () => {
    assert.throws(() => reduceLastAxis(new Float32Array(4), [2, 2], [2]), /outside the last axis/);
    assert.throws(() => reduceLastAxis(new Float32Array(4), [2, 2], [-1]), /outside the last axis/);
  });
});
