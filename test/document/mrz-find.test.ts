import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tiles, zoneWindow } from '../../src/modules/document/geometry.js';
import { estimateCells } from '../../src/modules/document/mrz-slots.js';
import { alignToBlock, extendRow, mergeRows } from '../../src/modules/document/mrz-locator.js';
import type { Quad } from '../../src/modules/document/geometry.js';
import type { CtcMatrix } from '../../src/modules/document/ctc-decode.js';

describe('finding the MRZ anywhere: tiles, line length', () => {
  // Guards issue 15: a phone screenshot's 14-pixel MRZ, shrunk with the whole page to the detector's 960, was never found.
  it('covers a tall screenshot with full-resolution tiles, half a tile apart, every pixel in some tile', () => {
    const ts = tiles(1080, 2294, 960);
    assert.ok(ts.every((t) => t.width <= 960 && t.height <= 960 && t.left + t.width <= 1080 && t.top + t.height <= 2294));
    for (const [x, y] of [
      [0, 0],
      [1079, 2293],
      [540, 1147],
    ] as const)
      assert.ok(ts.some((t) => x >= t.left && x < t.left + t.width && y >= t.top && y < t.top + t.height));
    // Anything up to half a tile across lies whole in one tile.
    for (let y = 0; y + 480 <= 2294; y += 37)
      assert.ok(
        ts.some((t) => y >= t.top && y + 480 <= t.top + t.height),
        `band at ${y}`,
      );
    assert.deepEqual(tiles(800, 600, 960), [{ left: 0, top: 0, width: 800, height: 600 }]);
  });

  // Guards issue 15: a tile's right edge cut a 44-character visa's rows at 36 characters, which passed every
  // check of an MRV-B visa and were answered without a warning.
  it("reads a zone that runs into a tile's inner edge again from a window holding it whole", () => {
    const tile = { left: 0, top: 0, width: 960, height: 960 };
    // Rows of 880 pixels cut at the tile's right edge (the image goes on to 1400).
    const w = zoneWindow([240, 500, 958, 560], tile, 1400, 1100, 960)!;
    assert.ok(w.left <= 240 && w.left + w.width >= 240 + (958 - 240) * 1.22, JSON.stringify(w));
    assert.ok(w.left >= 0 && w.top >= 0 && w.left + w.width <= 1400 && w.top + w.height <= 1100, JSON.stringify(w));
    // Cut at the top edge of a lower tile.
    assert.ok(zoneWindow([100, 481, 500, 560], { left: 0, top: 480, width: 960, height: 960 }, 960, 1800, 960));
    // Well inside the tile, or against the image's own edge: nothing cut it.
    assert.equal(zoneWindow([240, 500, 900, 560], tile, 1400, 1100, 960), undefined);
    assert.equal(zoneWindow([240, 500, 958, 560], tile, 960, 1100, 960), undefined);
  });

  // Guards issue 15: whole-step gaps at 3.4 steps a character put a 36-character visa row at 40+ cells and it answered 422.
  it('measures a 36-character row as 36 cells when its characters fall 3.4 timesteps apart', () => {
    const pitch = 3.4;
    const text = 'V<TTOMOXTIEWAAM<CO<<<<<<<<<<<<<<<<<<';
    const chars = [...text].map((_, k) => {
      const t = Math.round(3 + k * pitch);
      return { cls: 1, t0: t, t1: t, prob: 1 };
    });
    const m = { steps: Math.round(3 + 35 * pitch + 3 + 1) } as CtcMatrix;
    const cells = estimateCells(m, { text, chars, confidence: 1 })!;
    assert.ok(Math.abs(cells - 36) < 2, `estimated ${cells}`);
  });

  // Guards issue 15: a names row whose box held only its first 14 characters (a phone screenshot with a red box
  // round the zone) sloped 2 degrees off its row; stretched across the 44-character block it drifted off the
  // row and read "P<", and the document answered 422.
  it('stretches a short row of a block along the longest row of the block, not its own few characters', () => {
    const box = (x1: number, x2: number, yl: number, yr: number, h: number): { quad: Quad; score: number } => ({
      quad: [
        { x: x1, y: yl - h / 2 },
        { x: x2, y: yr - h / 2 },
        { x: x2, y: yr + h / 2 },
        { x: x1, y: yl + h / 2 },
      ],
      score: 1,
    });
    const rows = mergeRows([box(100, 273, 450, 456, 17), box(97, 594, 468, 468, 17)]);
    const short = rows.find((r) => r.x2 < 300)!;
    const long = rows.find((r) => r.x2 > 300)!;
    const [fixed, same] = alignToBlock([short, long]);
    assert.equal(same, long);
    const q = extendRow(fixed!, 94, 597);
    const drift = Math.abs((q[1].y + q[2].y) / 2 - (q[0].y + q[3].y) / 2);
    assert.ok(drift < 0.5, `right end ${drift.toFixed(1)} px off the left end's height`);
    assert.ok(Math.abs(extendRow(short, 94, 597)[1].y - q[1].y) > 10, 'the short row alone would have drifted');
  });

  // Guards issue 15: a card tilted on a table beside a paper (capture bench, seed 5151, index 28 of `--capture tilt`):
  // the paper's printed line (10 degrees) ended where the zone's first row (20 degrees) began, and the two boxes
  // were joined into one row that started with the paper's words; the zone answered 422.
  it('does not join boxes end to end whose directions differ, and still joins the parts of one sloped row', () => {
    const quad = (pts: number[]): { quad: Quad; score: number } => ({
      quad: [0, 2, 4, 6].map((i) => ({ x: pts[i]!, y: pts[i + 1]! })) as Quad,
      score: 1,
    });
    const paperLine = quad([0, 669, 273, 716, 268, 745, 0, 698]);
    const zoneRow = quad([284, 681, 592, 795, 581, 825, 274, 711]);
    assert.equal(mergeRows([paperLine, zoneRow]).length, 2);
    // The same zone row cut by the detector in two at a gap: one direction, joined.
    const left = quad([284, 681, 430, 735, 419, 765, 274, 711]);
    const right = quad([445, 741, 592, 795, 581, 825, 434, 771]);
    const joined = mergeRows([left, right]);
    assert.equal(joined.length, 1);
    assert.ok(joined[0]!.x2 > 590 && joined[0]!.x1 < 280);
  });
});
