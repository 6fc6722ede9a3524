import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appearanceOf, appearanceSimilarity, describeDetections, type Appearance } from '../../src/modules/person/appearance.js';
import { ByteTracker, defaultTrackerSettings } from '../../src/modules/person/bytetrack.js';
import { doorCounting } from '../helpers/door-counting.js';

type Rgb = [number, number, number];
const RED: Rgb = [200, 30, 30];
const BLUE: Rgb = [30, 40, 190];
const GREEN: Rgb = [40, 170, 50];
const BLACK: Rgb = [20, 20, 20];

/** A grey frame with people painted in: each a box, shirt colour on the upper half, trousers below. */
function frame(w: number, h: number, people: { x1: number; y1: number; x2: number; y2: number; top: Rgb; bottom: Rgb }[]) {
  const data = Buffer.alloc(w * h * 3, 128);
  for (const p of people) {
    for (let y = Math.max(0, p.y1); y < Math.min(h, p.y2); y++) {
      for (let x = Math.max(0, p.x1); x < Math.min(w, p.x2); x++) {
        const c = y < (p.y1 + p.y2) / 2 ? p.top : p.bottom;
        data.set(c, (y * w + x) * 3);
      }
    }
  }
  return { data, width: w, height: h };
}

describe('person appearance (colour descriptor)', () => {
  it('tells different clothes apart and matches the same clothes at another size and place', () => {
    const f = frame(300, 200, [
      { x1: 20, y1: 20, x2: 60, y2: 120, top: RED, bottom: BLUE },
      { x1: 100, y1: 40, x2: 130, y2: 115, top: GREEN, bottom: BLACK },
      { x1: 180, y1: 10, x2: 240, y2: 160, top: RED, bottom: BLUE },
    ]);
    const a = appearanceOf(f, { x1: 20, y1: 20, x2: 60, y2: 120 })!;
    const b = appearanceOf(f, { x1: 100, y1: 40, x2: 130, y2: 115 })!;
    const a2 = appearanceOf(f, { x1: 180, y1: 10, x2: 240, y2: 160 })!;
    assert.ok(appearanceSimilarity(a, a2) > 0.95, `same clothes ${appearanceSimilarity(a, a2)}`);
    assert.ok(appearanceSimilarity(a, b) < 0.2, `different clothes ${appearanceSimilarity(a, b)}`);
    // Swapped shirt and trousers are not the same person: the parts are compared separately.
    const swapped = appearanceOf(frame(100, 150, [{ x1: 20, y1: 20, x2: 60, y2: 120, top: BLUE, bottom: RED }]), { x1: 20, y1: 20, x2: 60, y2: 120 })!;
    assert.ok(appearanceSimilarity(a, swapped) < 0.2);
  });

  it('has nothing to say about a box too small to describe', () => {
    const f = frame(100, 100, [{ x1: 10, y1: 10, x2: 16, y2: 22, top: RED, bottom: BLUE }]);
    assert.equal(appearanceOf(f, { x1: 10, y1: 10, x2: 16, y2: 22 }), null);
  });

  it('does not describe a person mostly hidden by someone in front (lower in the picture)', () => {
    const f = frame(200, 200, [
      { x1: 50, y1: 20, x2: 90, y2: 120, top: GREEN, bottom: BLACK },
      { x1: 55, y1: 40, x2: 100, y2: 150, top: RED, bottom: BLUE },
    ]);
    const [behind, front] = describeDetections(
      f,
      [
        { x1: 50, y1: 20, x2: 90, y2: 120, score: 0.8 },
        { x1: 55, y1: 40, x2: 100, y2: 150, score: 0.9 },
      ],
      0.3,
    );
    assert.equal(behind, null);
    assert.ok(front);
  });
});

describe('appearance in tracking and counting (measured, off by default)', () => {
  const look = (top: Rgb, bottom: Rgb): Appearance => appearanceOf(frame(60, 120, [{ x1: 0, y1: 0, x2: 60, y2: 120, top, bottom }]), { x1: 0, y1: 0, x2: 60, y2: 120 })!;
  const red = look(RED, BLUE);
  const green = look(GREEN, BLACK);

  it('ByteTrack with an appearance weight gives an ambiguous box to the track that looks like it', () => {
    // Two people side by side; then one box between them, nearer the red one by position but in green.
    const run = (appearanceWeight: number) => {
      const t = new ByteTracker({ ...defaultTrackerSettings(0.5), appearanceWeight });
      for (let i = 0; i < 4; i++)
        t.update([
          { x1: 100, y1: 100, x2: 140, y2: 200, score: 0.9, look: red },
          { x1: 130, y1: 100, x2: 170, y2: 200, score: 0.9, look: green },
        ]);
      const { tracks } = t.update([{ x1: 113, y1: 100, x2: 153, y2: 200, score: 0.9, look: green }]);
      return tracks.map((k) => k.trackId);
    };
    assert.deepEqual(run(0), [1]);
    assert.deepEqual(run(0.5), [2]);
  });

  it("counting's colour gate keeps a lost person's side from a new id in other clothes", () => {
    const person = (trackId: number, bottom: number, l: Appearance) => ({ trackId, x1: 180, x2: 220, y1: bottom - 100, y2: bottom, score: 0.9, hits: 5, look: l });
    const run = (lookMin: number, second: Appearance) => {
      const c = doorCounting(undefined, { lookMin });
      for (let y = 140; y <= 180; y += 10) c.process([person(1, y, red)], [], 400, 400);
      for (let i = 0; i < 3; i++) c.process([], [], 400, 400);
      for (let y = 230; y <= 270; y += 10) c.process([person(2, y, second)], [], 400, 400);
      return c.countsOf('door');
    };
    assert.deepEqual(run(0, green), { in: 1, out: 0 });
    assert.deepEqual(run(0.8, green), { in: 0, out: 0 });
    assert.deepEqual(run(0.8, red), { in: 1, out: 0 });
  });
});
