import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CtcMatrix } from '../../src/modules/document/ctc-decode.js';
import { rowExtent, widthFromExtents, zoneFiller, type SpanCrop, type SpanRead } from '../../src/modules/document/mrz-row-end.js';

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

  // An MRV-A visa whose names row found its fillers out to 43.9 cells while the second row's read past its end
  // stopped at 36: read as 36 wide, it was answered as an MRV-B. A row of 36 seldom finds glyphs or its filler past
  // its end; a row of 44 often misses its faint padding there.
  it('takes one row found out past 40 cells beside one that ended near 36 as 44, unsure', () => {
    assert.deepEqual(widthFromExtents([35.7, 43.9]), { width: 44, sure: false });
    assert.deepEqual(widthFromExtents([43.1, 36.3]), { width: 44, sure: false });
  });

  it('reads the zone as measured, unsure, when no row reaches past 40 cells and the rows fall between the layouts or read nothing', () => {
    assert.deepEqual(widthFromExtents([40, 40]), { width: 36, sure: false });
    assert.deepEqual(widthFromExtents([undefined, 36]), { width: 36, sure: false });
    assert.equal(rowExtent(spanRead(90, 830, []), undefined, 20), undefined);
  });
});

/**
 * A row drawn on white, 16 page pixels a cell, cell k centred at x = 100 + 16k: letters (a box) in
 * cells [0, letters), fillers (a chevron) in [letters, end). `crop(from, steps, decoded)` cuts it over
 * [from, from + 8 steps] (one crop pixel a page pixel) with a read that decoded the cells `decoded` surely.
 */
function drawnRow(letters: number, end: number) {
  const H = 32;
  const W = 1200;
  const ink = new Uint8Array(W * H).fill(0);
  const dot = (x: number, y: number) => {
    for (const dx of [0, 1]) if (x + dx >= 0 && x + dx < W) ink[y * W + x + dx] = 1;
  };
  for (let k = 0; k < end; k++) {
    const cx = 100 + 16 * k;
    if (k < letters) {
      for (let y = 6; y < 26; y++) [cx - 5, cx + 4].forEach((x) => dot(x, y));
      for (let x = cx - 5; x <= cx + 4; x++) [6, 7, 16, 24, 25].forEach((y) => dot(x, y));
    } else for (let y = 8; y < 24; y++) dot(cx - 4 + (y < 16 ? 16 - y : y - 15), y);
  }
  return (from: number, steps: number, decoded: number[], sure: { prob: number; rival?: number } = { prob: 0.95 }): SpanCrop => {
    const to = from + 8 * steps;
    const data = new Uint8Array((to - from) * H * 3).fill(255);
    for (let y = 0; y < H; y++) for (let x = from; x < to; x++) if (ink[y * W + x]) data.fill(0, (y * (to - from) + x - from) * 3, (y * (to - from) + x - from) * 3 + 3);
    // Cell k's centre, 100 + 16k, is timestep (100 + 16k - from - 4) / 8 of the crop.
    const chars = decoded.map((k) => ({ cls: 1, t0: (100 + 16 * k - from - 4) / 8, t1: (100 + 16 * k - from - 4) / 8, ...sure }));
    const text = decoded.map((k) => (k < letters ? 'X' : '<')).join('');
    return { matrix: { steps } as CtcMatrix, read: { text, chars, confidence: 0.95 }, from, to, line: { data, width: to - from, height: H } };
  };
}

describe("where a row ends, told by the document's own filler past what the read decoded (issue 15)", () => {
  const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

  // A blurred MRV-A: the read of both rows' boxes stopped in their padding, and the read past the boxes' end, a
  // crop of padding alone, decoded nothing; the zone was read as a 36-character MRV-B.
  it('follows the padding the reads did not decode out to a 44-character row', () => {
    const row = drawnRow(20, 44);
    const own = row(92, 60, range(0, 28));
    const tail = row(540, 40, []);
    const filler = zoneFiller([own], 16);
    assert.ok(filler, 'the sure fillers and letters tell the filler');
    assert.ok(Math.abs(rowExtent(own, tail, 16)! - 28) < 0.6, 'without it the row ends where its read did');
    const extent = rowExtent(own, tail, 16, filler)!;
    assert.ok(Math.abs(extent - 44) < 0.6, `extent ${extent}`);
  });

  // Padding that ends at 36 cells, or fades before 44, carries no sure width: the row keeps the extent its glyphs
  // gave, which the zone's width leaves unsure, rather than a sure 36 from a run that may have stopped at a faint filler.
  it('does not count a run of fillers that stops short of a 44-character row', () => {
    const row = drawnRow(20, 36);
    const own = row(92, 60, range(0, 28));
    const tail = row(540, 40, []);
    const extent = rowExtent(own, tail, 16, zoneFiller([own], 16))!;
    assert.ok(Math.abs(extent - 28) < 0.6, `extent ${extent}`);
    assert.deepEqual(widthFromExtents([extent, extent]), { width: 36, sure: false });
  });

  // Sharp 31- and 34-pixel MRV-A visas (seed 1346723826 #234 and #221 of the evaluation bench): the recogniser gave their chevrons
  // 0.55-0.8, the rest of the probability going to look-alikes in its dictionary that no MRZ holds, and to no
  // other MRZ character (0.02-0.07). Taken for unsure, they told no filler, and the visas were read 36 wide.
  it('takes a character that clearly beat every other MRZ character as sure, whatever its probability', () => {
    const row = drawnRow(20, 44);
    const clear = row(92, 60, range(0, 28), { prob: 0.6, rival: 0.04 });
    assert.ok(zoneFiller([clear], 16), 'clear winners tell the filler');
    assert.ok(Math.abs(rowExtent(clear, row(540, 40, []), 16, zoneFiller([clear], 16))! - 44) < 0.6);
    assert.equal(zoneFiller([row(92, 60, range(0, 28), { prob: 0.6, rival: 0.3 })], 16), undefined, 'nor does a close call');
    assert.equal(zoneFiller([row(92, 60, range(0, 28), { prob: 0.6 })], 16), undefined, 'nor a probability alone');
  });

  it('tells no filler from a read with too few sure fillers or letters', () => {
    const row = drawnRow(20, 44);
    assert.equal(zoneFiller([row(92, 60, range(17, 24))], 16), undefined);
  });
});
