import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { truthCounts, truthRange, zoneTruthRange } from '../../bench/lib/line-counts.js';
import { errorBeyondRange, zoneErrorBeyondRange } from '../../bench/lib/count-metrics.js';
import type { MotBox } from '../../bench/lib/mot-metrics.js';
import type { NormPoint } from '../../src/modules/video/counting/rules.js';

/**
 * The evaluation's tolerance (bench/eval-tracking.ts "beyond" column): the true count of a
 * line direction is a range over the annotated points moved by a small part of the person's
 * height, and only a count outside that range is scored as wrong there. In a 1000x1000 frame
 * the rule's band is 0.02 of the diagonal (28.3 px), and a segment is lengthened by the band.
 */
const W = 1000;
const line = {
  name: 'l',
  points: [
    [0.5, 0.3],
    [0.5, 0.6],
  ] as [NormPoint, NormPoint],
};

/** A 200 px tall person walking left to right with their feet at y = feet (an 'out' crossing of `line`). */
function walker(feet: number, id = 1): MotBox[] {
  const boxes: MotBox[] = [];
  for (let i = 0; i < 21; i++) boxes.push({ frame: i + 1, id, x: 390 + 10 * i, y: feet - 200, w: 20, h: 200 });
  return boxes;
}

describe('count tolerance (truthRange, errorBeyondRange)', () => {
  it('a person passing within a few pixels of a segment end crosses or not within the range', () => {
    // Feet at y = 622: inside the lengthened end (628.3); 10 px lower (0.05 of the height) they pass it.
    const boxes = walker(622);
    assert.deepEqual(truthCounts(boxes, [line], [], W, W).lines.l, { in: 0, out: 1 });
    const range = truthRange([boxes], [line], W, W, 0.05);
    assert.deepEqual(range.l, { in: [0, 0], out: [0, 1] });
    assert.equal(errorBeyondRange(range, { l: { in: 0, out: 0 } }), 0);
    assert.equal(errorBeyondRange(range, { l: { in: 0, out: 1 } }), 0);
    assert.equal(errorBeyondRange(range, { l: { in: 1, out: 3 } }), 3);
  });

  it('a clear crossing has one true count whatever the small move', () => {
    const boxes = walker(450);
    const range = truthRange([boxes], [line], W, W, 0.05);
    assert.deepEqual(range.l, { in: [0, 0], out: [1, 1] });
    assert.equal(errorBeyondRange(range, { l: { in: 0, out: 0 } }), 1);
    assert.equal(errorBeyondRange(range, {}), 1);
  });

  it('no tolerance is the plain truth', () => {
    const boxes = [...walker(622, 1), ...walker(450, 2)];
    const range = truthRange([boxes], [line], W, W, 0);
    assert.deepEqual(range.l, { in: [0, 0], out: [2, 2] });
  });

  it('a person marked "do not consider" may be counted or not', () => {
    const considered = walker(450, 1);
    const ignored = walker(450, 2);
    const range = truthRange([considered, [...considered, ...ignored]], [line], W, W, 0);
    assert.deepEqual(range.l, { in: [0, 0], out: [1, 2] });
    assert.equal(errorBeyondRange(range, { l: { in: 0, out: 2 } }), 0);
    assert.equal(errorBeyondRange(range, { l: { in: 0, out: 3 } }), 1);
  });

  it('a zone entered by a person marked "do not consider" may count them or not', () => {
    // The zone spans x 450-700: both walkers (x 390 to 590) enter it and are inside when their annotation ends.
    const zone = {
      name: 'z',
      points: [
        [0.45, 0.3],
        [0.7, 0.3],
        [0.7, 0.6],
        [0.45, 0.6],
      ] as NormPoint[],
    };
    const considered = walker(450, 1);
    const range = zoneTruthRange([considered, [...considered, ...walker(450, 2)]], [zone], W, W);
    assert.deepEqual(range.z, { entered: [1, 2], exited: [1, 2] });
    assert.equal(zoneErrorBeyondRange(range, { z: { entered: 2, exited: 1 } }), 0);
    assert.equal(zoneErrorBeyondRange(range, { z: { entered: 0, exited: 3 } }), 2);
  });
});
