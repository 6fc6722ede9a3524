import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CtcMatrix } from '../../src/modules/document/ctc-decode.js';
import { rowExtent, widthFromExtents, type SpanRead } from '../../src/modules/document/mrz-row-end.js';

/** A crop over page x [from, to], 8 pixels a timestep, that decoded a glyph centred at each of `xs`. */
function spanRead(from: number, to: number, xs: number[], prob = 0.95): SpanRead {
  const steps = Math.round((to - from) / 8);
  const chars = xs.map((x) => {
    const t = Math.round(((x - from) / (to - from)) * steps - 0.5);
    return { cls: 1, t0: t, t1: t, prob };
  });
  return { matrix: { steps } as CtcMatrix, read: { text: '<'.repeat(xs.length), chars, confidence: prob }, from, to };
}

/** Centres of cells a..b (inclusive) of a row whose first cell is centred at x = 100, 20 pixels a cell. */
const cells = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => 100 + 20 * (a + i));

describe('where a machine-readable zone row ends (issue 15: an MRV-A cut at 36 characters read as an MRV-B)', () => {
  // The detector stopped both rows of a 44-character visa after 34 cells; the read past the rows' end
  // found fillers up to the 44th cell at the rows' pitch.
  it('measures a row cut in its padding at its full 44 cells from the read past its end', () => {
    const own = spanRead(90, 790, cells(0, 33));
    const tail = spanRead(750, 1000, cells(32, 43));
    const extent = rowExtent(own, tail, 20)!;
    assert.ok(Math.abs(extent - 44) < 0.6, `extent ${extent}`);
    assert.deepEqual(widthFromExtents([extent, 43.7]), { width: 44, sure: true });
  });

  it('measures a 36-character row as 36 cells when nothing lies past its end, or only weak guesses', () => {
    const own = spanRead(90, 830, cells(0, 35));
    const blank = rowExtent(own, spanRead(790, 1000, []), 20)!;
    assert.ok(Math.abs(blank - 36) < 0.6);
    const texture = rowExtent(own, spanRead(790, 1000, [900, 950], 0.3), 20)!;
    assert.ok(Math.abs(texture - 36) < 0.6, `extent ${texture}`);
    assert.deepEqual(widthFromExtents([texture, 32.8]), { width: 36, sure: true });
  });

  // A sloped card's second row: its read past the end came off the row and stopped at 28 cells, while the names
  // row found fillers out to 44 cells. The zone's rows are one length: 44, with the doubt said.
  it('takes one row found out to 44 cells beside a row that stopped short of any layout as 44, unsure', () => {
    assert.deepEqual(widthFromExtents([43.6, 28.3]), { width: 44, sure: false });
    assert.deepEqual(widthFromExtents([43.6, undefined]), { width: 44, sure: false });
  });

  // A tile's edge cut both rows of an MRV-A visa at 36 characters: the read past their end had nothing to read, and
  // the rows "ended" at 36. A row that runs to the end of what could be read says nothing of the zone's width.
  it('gives no extent to a row whose glyphs run to the end of what could be read before a 44-character row ends', () => {
    const own = spanRead(90, 812, cells(0, 35));
    assert.equal(rowExtent(own, undefined, 20), undefined);
    assert.equal(rowExtent(own, spanRead(772, 815, cells(34, 35)), 20), undefined);
    // The same row with room past it that held nothing: 36 cells.
    assert.ok(Math.abs(rowExtent(own, spanRead(772, 1000, []), 20)! - 36) < 0.6);
    assert.deepEqual(widthFromExtents([undefined, undefined]), { width: 36, sure: false });
  });

  // A blurred, 10-pixel MRV-A: the second row's padding faded and its read stopped at its checked data (27.8 cells),
  // the names row read 36.9: taken for an MRV-B without a warning.
  it('does not take 36 as sure from a row that saw none of its padding', () => {
    assert.deepEqual(widthFromExtents([36.9, 27.8]), { width: 36, sure: false });
    assert.deepEqual(widthFromExtents([36.9, 31]), { width: 36, sure: true });
  });

  it('reads the zone as measured, unsure, when the rows disagree, fall between the layouts or read nothing', () => {
    assert.deepEqual(widthFromExtents([36, 43]), { width: 36, sure: false });
    assert.deepEqual(widthFromExtents([40, 40]), { width: 36, sure: false });
    assert.deepEqual(widthFromExtents([undefined, 36]), { width: 36, sure: false });
    assert.equal(rowExtent(spanRead(90, 830, []), undefined, 20), undefined);
  });
});
