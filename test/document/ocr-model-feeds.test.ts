import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fillImageTensor, imageFeedSize } from '../../src/runtime/image-feed.js';
import { lineFeed, REC_HEIGHT, WIDTH_STEP } from '../../src/modules/document/text-recognizer.js';
import { detectorFeed } from '../../src/modules/document/text-detector.js';

/** The recogniser's input as it was filled on the main thread before the worker filled it: B, G, R planes of byte / 127.5 - 1, padding 0. */
function mainThreadFill(data: Uint8Array, width: number): Float32Array {
  const w = Math.ceil(width / WIDTH_STEP) * WIDTH_STEP;
  const plane = REC_HEIGHT * w;
  const input = new Float32Array(3 * plane);
  for (let y = 0; y < REC_HEIGHT; y++)
    for (let x = 0, p = y * width * 3, q = y * w; x < width; x++, p += 3, q++) {
      input[q] = data[p + 2]! / 127.5 - 1;
      input[plane + q] = data[p + 1]! / 127.5 - 1;
      input[2 * plane + q] = data[p]! / 127.5 - 1;
    }
  return input;
}

describe('text recogniser input', () => {
  it('the line feed the worker fills is bit for bit the float input filled on the main thread, padding included', () => {
    for (const width of [1, 7, 8, 9, 333, 1030]) {
      // Every byte value at every channel, in an order that is not the pixels' own.
      const data = new Uint8Array(REC_HEIGHT * width * 3).map((_, i) => (i * 7919 + (i >> 3)) % 256);
      const feed = lineFeed('x', { data, width, height: REC_HEIGHT });
      assert.deepEqual(feed.dims, [1, 3, REC_HEIGHT, Math.ceil(width / WIDTH_STEP) * WIDTH_STEP]);
      const got = fillImageTensor(feed, new Float32Array(imageFeedSize(feed)).fill(Number.NaN));
      assert.deepEqual(got, mainThreadFill(data, width), `width ${width}`);
    }
  });

  it('refuses a crop that is not at the recogniser height', () => {
    assert.throws(() => lineFeed('x', { data: new Uint8Array(32 * 10 * 3), width: 10, height: 32 }), /line crop/);
  });
});

/** The detector's input as it was filled on the main thread: planes B, G, R, each byte / 255 less ImageNet's mean over its std, the first statistics on blue. */
function detectorMainThreadFill(data: Uint8Array, w: number, h: number): Float32Array {
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  const [b, g, r] = mean.map((m, c) => Float32Array.from({ length: 256 }, (_, v) => (v / 255 - m) / std[c]!)) as [Float32Array, Float32Array, Float32Array];
  const plane = w * h;
  const input = new Float32Array(3 * plane);
  for (let i = 0, p = 0; i < plane; i++, p += 3) {
    input[i] = b[data[p + 2]!]!;
    input[plane + i] = g[data[p + 1]!]!;
    input[2 * plane + i] = r[data[p]!]!;
  }
  return input;
}

describe('text detector input', () => {
  it('the feed the worker fills is bit for bit the float input filled on the main thread, every byte in every channel', () => {
    for (const [w, h] of [
      [32, 32],
      [96, 64],
      [736, 544],
    ] as const) {
      const data = new Uint8Array(w * h * 3).map((_, i) => (i * 7919 + (i >> 4)) % 256);
      const feed = detectorFeed('x', data, w, h);
      assert.deepEqual(fillImageTensor(feed, new Float32Array(imageFeedSize(feed)).fill(Number.NaN)), detectorMainThreadFill(data, w, h), `${w}x${h}`);
    }
  });
});
