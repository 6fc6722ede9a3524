import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cellAt, sampleCell, type InkPlane, type RowGeometry } from '../../src/modules/document/glyph-cells.js';
import { GRID_CAP, GRID_H, GRID_MARGIN, GRID_W } from '../../src/modules/document/ocrb-templates.js';
import { Rng } from '../fixtures/mrz-docs/identity.js';

/**
 * sampleCell works out its columns' interpolation once a cell and reuses scratch arrays (it runs
 * on the main thread, thousands of cells a zone). Its values must be exactly those of sampling
 * each point on its own, as the glyph stage was measured with: the reference below is that
 * plain form, point by point, with the plain mean and norm.
 */

function bilinear(p: InkPlane, x: number, y: number): number {
  const xc = Math.min(p.width - 1.001, Math.max(0, x));
  const yc = Math.min(p.height - 1.001, Math.max(0, y));
  const xi = Math.floor(xc);
  const yi = Math.floor(yc);
  const fx = xc - xi;
  const fy = yc - yi;
  const i = yi * p.width + xi;
  return (p.data[i]! * (1 - fx) + p.data[i + 1]! * fx) * (1 - fy) + (p.data[i + p.width]! * (1 - fx) + p.data[i + p.width + 1]! * fx) * fy;
}

function referenceCell(p: InkPlane, g: RowGeometry, k: number, dx: number, dy: number, fine: boolean): Float32Array {
  const { cx, pitch, top } = cellAt(g, k);
  const out = new Float32Array(GRID_W * GRID_H);
  const left = cx - pitch / 2 + dx;
  const sy = g.cap / GRID_CAP;
  const y0 = top - GRID_MARGIN * sy + dy;
  const sx = pitch / GRID_W;
  for (let gy = 0; gy < GRID_H; gy++)
    for (let gx = 0; gx < GRID_W; gx++) {
      if (!fine) {
        out[gy * GRID_W + gx] = bilinear(p, left + (gx + 0.5) * sx, y0 + (gy + 0.5) * sy);
        continue;
      }
      const ya = y0 + (gy + 0.25) * sy;
      const yb = y0 + (gy + 0.75) * sy;
      const xa = left + (gx + 0.25) * sx;
      const xb = left + (gx + 0.75) * sx;
      let s = 0;
      s += bilinear(p, xa, ya);
      s += bilinear(p, xb, ya);
      s += bilinear(p, xa, yb);
      s += bilinear(p, xb, yb);
      out[gy * GRID_W + gx] = s;
    }
  let mean = 0;
  for (const v of out) mean += v;
  mean /= out.length;
  let ss = 0;
  for (let i = 0; i < out.length; i++) {
    out[i] = out[i]! - mean;
    ss += out[i]! ** 2;
  }
  const norm = Math.sqrt(ss);
  if (norm > 1e-6) for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
  else out.fill(0);
  return out;
}

function randomPlane(rng: Rng, width: number, height: number): InkPlane {
  const data = new Float32Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = rng.range(0, 255);
  return { data, width, height };
}

describe('sampleCell', () => {
  it('gives exactly the values of sampling each point on its own, coarse and fine, inside and across the crop edges', () => {
    const rng = new Rng(20261127);
    const scratch = new Float32Array(GRID_W * GRID_H);
    let cells = 0;
    for (let trial = 0; trial < 40; trial++) {
      const p = randomPlane(rng, Math.round(rng.range(120, 900)), 48);
      const g: RowGeometry = { a: rng.range(-10, 20), b: rng.range(12, 26), c: rng.range(-0.02, 0.02), top0: rng.range(-6, 14), top1: rng.range(-0.1, 0.1), cap: rng.range(14, 40) };
      // Positions past the row's end and shifts beyond its edges exercise the clamping.
      for (const k of [0, 1, Math.floor(rng.range(2, 40)), 44, 60]) {
        const dx = rng.range(-8, 8);
        const dy = rng.range(-8, 8);
        for (const fine of [false, true]) {
          const want = referenceCell(p, g, k, dx, dy, fine);
          assert.deepEqual(sampleCell(p, g, k, dx, dy, fine), want);
          // Into a scratch cell holding the previous cell's values: the same.
          assert.deepEqual(sampleCell(p, g, k, dx, dy, fine, scratch), want);
          cells++;
        }
      }
    }
    assert.equal(cells, 400);
  });

  it('gives a flat cell zeros', () => {
    const p: InkPlane = { data: new Float32Array(100 * 48).fill(7), width: 100, height: 48 };
    const g: RowGeometry = { a: 30, b: 18, c: 0, top0: 10, top1: 0, cap: 24 };
    assert.ok(sampleCell(p, g, 1, 0, 0, true).every((v) => v === 0));
  });
});
