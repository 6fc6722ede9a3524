import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GalleryMatrix } from '../../src/modules/identity/index/gallery-matrix.js';
import { randomUnit, seeded } from './vectors.js';

describe('WebAssembly scan kernels', () => {
  for (const dim of [128, 512]) {
    it(`${dim}-D: exact scores equal float64 dot products; int8 scores stay within 0.01; odd sizes and growth keep rows`, () => {
      const rand = seeded(dim);
      const m = new GalleryMatrix(dim, 2);
      const rows = Array.from({ length: 301 }, () => randomUnit(dim, rand));
      for (const r of rows) m.add(r);
      const q = randomUnit(dim, rand);
      const exact = Array.from(m.scan(q, 'exact'));
      const approx = Array.from(m.scan(q, 'int8'));
      assert.equal(exact.length, 301);
      // The int8 scan leaves out the query's scale: recover it from the best-aligned row.
      const k = approx.reduce((a, v, i) => a + v * exact[i]!, 0) / approx.reduce((a, v) => a + v * v, 0);
      rows.forEach((r, i) => {
        let d = 0;
        for (let j = 0; j < dim; j++) d += r[j]! * q[j]!;
        assert.ok(Math.abs(exact[i]! - d) < 1e-5, `row ${i}: ${exact[i]} vs ${d}`);
        assert.ok(Math.abs(approx[i]! * k - d) < 0.01, `row ${i} int8: ${approx[i]! * k} vs ${d}`);
      });
    });
  }

  it('removeSwap moves the last row into the hole', () => {
    const rand = seeded(7);
    const m = new GalleryMatrix(16, 4);
    const rows = Array.from({ length: 5 }, () => randomUnit(16, rand));
    for (const r of rows) m.add(r);
    assert.equal(m.removeSwap(1), 4);
    assert.deepEqual(Array.from(m.row(1)), Array.from(rows[4]!));
    assert.equal(m.removeSwap(3), -1);
    assert.equal(m.size, 3);
  });

  it('rejects dimensions the kernels cannot walk', () => {
    assert.throws(() => new GalleryMatrix(100), /multiple of 16/);
  });
});
