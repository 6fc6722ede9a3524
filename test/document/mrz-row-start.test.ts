import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Quad } from '../../src/modules/document/geometry.js';
import { lostStarts, type TimedCrop } from '../../src/modules/document/mrz-row-start.js';

/** A row's crop from page x 100 to 700 at height y, 600 columns wide (75 timesteps), turned by `deg` about (400, 100). */
function crop(y: number, first: number, decoded: number, deg = 0): TimedCrop {
  const a = (deg * Math.PI) / 180;
  const turn = (x: number, yy: number) => ({ x: 400 + (x - 400) * Math.cos(a) - (yy - 100) * Math.sin(a), y: 100 + (x - 400) * Math.sin(a) + (yy - 100) * Math.cos(a) });
  const quad: Quad = [turn(100, y - 10), turn(700, y - 10), turn(700, y + 10), turn(100, y + 10)];
  // 20 page pixels a cell: 2.5 timesteps.
  return { quad, cropWidth: 600, first, pitch: 2.5, decoded };
}

describe("rows that lost their first character, told by the zone's other rows (issue 15)", () => {
  // A TD1 whose names row read `EIRD<<<…` for `CEIRD<<<…`: its timing puts position 0 a cell right of the others'.
  it('gives a row placed a cell late the start on the left edge its two siblings draw', () => {
    const starts = lostStarts([crop(60, 1.5, 30), crop(100, 1.6, 28), crop(140, 4.0, 12)]);
    assert.deepEqual(starts.slice(0, 2), [undefined, undefined]);
    assert.ok(Math.abs(starts[2]! - 1.7) < 0.05, `start ${starts[2]}`);
  });

  it('measures along the rows, so a turned zone is no late start', () => {
    // Turned 12 degrees and cut from the same page x, the rows' crops begin at different points of the zone's left edge...
    const turned = [crop(60, 1.5, 30, 12), crop(100, 1.5, 28, 12), crop(140, 1.5, 12, 12)];
    assert.deepEqual(lostStarts(turned), [undefined, undefined, undefined]);
    // ...and a late start is still told.
    const late = lostStarts([crop(60, 1.5, 30, 12), crop(100, 1.5, 28, 12), crop(140, 4.0, 12, 12)]);
    assert.ok(Math.abs(late[2]! - 1.5) < 0.05, `start ${late[2]}`);
  });

  // In a perspective view the zone's left edge leans: each row starts further right than the one above.
  it('follows a leaning edge: a row on the line its siblings draw is no late start', () => {
    assert.deepEqual(lostStarts([crop(60, 1.5, 30), crop(100, 2.5, 28), crop(140, 3.5, 12)]), [undefined, undefined, undefined]);
  });

  // Two rows cannot tell a leaning edge from a lost character (a TD2 card's names row so "lost" its first letter).
  it('leaves two-row zones, and rows within half a cell of the edge or far from it, as they were', () => {
    assert.deepEqual(lostStarts([crop(60, 1.5, 30), crop(100, 4.0, 12)]), [undefined, undefined]);
    assert.deepEqual(lostStarts([crop(60, 1.5, 30), crop(100, 1.5, 28), crop(140, 2.6, 12)]), [undefined, undefined, undefined]);
    assert.deepEqual(lostStarts([crop(60, 1.5, 30), crop(100, 1.5, 28), crop(140, 6.0, 12)]), [undefined, undefined, undefined]);
  });
});
