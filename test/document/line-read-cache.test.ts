import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RgbImage } from '../../src/core/image-decode.js';
import type { Quad } from '../../src/modules/document/geometry.js';
import type { CropOptions } from '../../src/modules/document/line-crop.js';
import { LineReadCache } from '../../src/modules/document/line-read-cache.js';
import type { LineRead } from '../../src/modules/document/ocr-engine.js';

/**
 * The MRZ reader's per-request memory of recogniser reads: a crop is read once per image and
 * crop options, whichever call asks for it; anything else is read.
 */

const image = (): RgbImage => ({ data: Buffer.alloc(3 * 4 * 4), width: 4, height: 4 });
const quad = (x: number): Quad => [
  { x, y: 0 },
  { x: x + 10, y: 0 },
  { x: x + 10, y: 2 },
  { x, y: 2 },
];
const OPTS: CropOptions = { height: 48, stretch: 1.15, interpolation: 'cubic', neutralInk: true };

/** A reader that records the quads it was asked for and answers each with a read naming its x. */
function recorder(): { calls: number[][]; read: (qs: Quad[]) => Promise<LineRead[]> } {
  const calls: number[][] = [];
  return {
    calls,
    read: (qs) => {
      calls.push(qs.map((q) => q[0].x));
      return Promise.resolve(
        qs.map((q) => ({ width: q[0].x, matrix: { steps: 0, best: [], bestProb: [], kept: [], keptProbs: [] } as never, line: { data: new Uint8Array(0), width: 0, height: 0 } })),
      );
    },
  };
}

describe('LineReadCache', () => {
  it('reads a crop once per image and options, and answers in the order asked', async () => {
    const cache = new LineReadCache();
    const img = image();
    const r = recorder();
    const first = await cache.read(img, [quad(1), quad(2)], OPTS, r.read);
    const second = await cache.read(img, [quad(3), quad(2), quad(1)], { ...OPTS }, r.read);
    assert.deepEqual(r.calls, [[1, 2], [3]]);
    assert.deepEqual(
      second.map((x) => x.width),
      [3, 2, 1],
    );
    // The cached read is the very read, not a read again.
    assert.equal(second[1], first[1]);
    assert.equal(second[2], first[0]);
  });

  it('does not call the reader when every crop was read', async () => {
    const cache = new LineReadCache();
    const img = image();
    const r = recorder();
    await cache.read(img, [quad(1)], OPTS, r.read);
    await cache.read(img, [quad(1), quad(1)], OPTS, r.read);
    assert.deepEqual(r.calls, [[1]]);
  });

  it('reads a quad asked twice in one call once', async () => {
    const r = recorder();
    const out = await new LineReadCache().read(image(), [quad(5), quad(5), quad(6)], OPTS, r.read);
    assert.deepEqual(r.calls, [[5, 6]]);
    assert.equal(out[0], out[1]);
  });

  it('reads again for other options, another image or a quad that differs at all', async () => {
    const cache = new LineReadCache();
    const a = image();
    const b = image();
    const r = recorder();
    await cache.read(a, [quad(1)], OPTS, r.read);
    await cache.read(a, [quad(1)], { ...OPTS, interpolation: 'linear' }, r.read);
    await cache.read(a, [quad(1)], { ...OPTS, stretch: 1 }, r.read);
    await cache.read(b, [quad(1)], OPTS, r.read);
    const moved = quad(1);
    moved[2] = { x: 11, y: 2.0000001 };
    await cache.read(a, [moved], OPTS, r.read);
    assert.equal(r.calls.length, 5);
  });

  it('hands a failed read to every caller that waits on it', async () => {
    const cache = new LineReadCache();
    const img = image();
    const failing = () => Promise.reject(new Error('worker gone'));
    const one = cache.read(img, [quad(1)], OPTS, failing);
    const two = cache.read(img, [quad(1)], OPTS, failing);
    await assert.rejects(one, /worker gone/);
    await assert.rejects(two, /worker gone/);
  });
});
