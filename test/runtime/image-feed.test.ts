import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { channelStats, fillImageTensor, imageFeedSize, type ImageFeed } from '../../src/runtime/image-feed.js';

/** The tensor as the definition says, one byte at a time. */
function reference(feed: ImageFeed): Float32Array {
  const [, , H, W] = feed.dims;
  const plane = W * H;
  const out = new Float32Array(3 * plane);
  const planeOf = feed.order === 'rgb' ? [0, 1, 2] : [2, 1, 0];
  for (const ch of [0, 1, 2] as const) {
    const { mean, std } = channelStats(feed, ch);
    out.subarray(planeOf[ch]! * plane, (planeOf[ch]! + 1) * plane).fill(((feed.padByte ?? 0) - mean) / std);
    for (let y = 0; y < feed.height; y++)
      for (let x = 0; x < feed.width; x++) {
        const byte = feed.rgb[(y * feed.width + x) * 3 + ch]!;
        out[planeOf[ch]! * plane + (y + feed.offsetY) * W + x + feed.offsetX] = Math.fround((byte - mean) / std);
      }
  }
  return out;
}

describe('image feed', () => {
  it('fills the same tensor as byte by byte, at every width, alignment of the bytes, offset and padding', () => {
    let cases = 0;
    for (const width of [1, 2, 3, 4, 5, 7, 13, 64, 67])
      for (const height of [1, 3])
        for (const byteOffset of [0, 1, 2, 3, 5])
          for (const order of ['rgb', 'bgr'] as const)
            for (const stats of [
              { mean: 127.5, std: 128 },
              // Per channel, as the text detector's ImageNet statistics.
              { mean: [103.5, 116.3, 123.7], std: [57.4, 57.1, 58.4], padByte: 9 },
            ] as const)
              for (const [offsetX, offsetY, padW, padH] of [
                [0, 0, 0, 0],
                [2, 1, 5, 3],
                [0, 0, 3, 0],
              ] as const) {
                const backing = new Uint8Array(width * height * 3 + byteOffset + 4).map((_, i) => (i * 7919 + width) % 256);
                const rgb = backing.subarray(byteOffset, byteOffset + width * height * 3);
                const dims: ImageFeed['dims'] = [1, 3, height + offsetY + padH, width + offsetX + padW];
                const feed: ImageFeed = { name: 'x', rgb, width, height, dims, offsetX, offsetY, order, ...stats };
                // A reused buffer holds anything: every element must be written.
                const got = fillImageTensor(feed, new Float32Array(imageFeedSize(feed)).fill(Number.NaN));
                assert.deepEqual(got, reference(feed), `width ${width} height ${height} byte offset ${byteOffset} ${order} ${JSON.stringify(stats)} at ${offsetX},${offsetY} padded ${padW},${padH}`);
                cases++;
              }
    assert.equal(cases, 9 * 2 * 5 * 2 * 2 * 3);
  });

  it('refuses a buffer of another size and an image that does not fit', () => {
    const feed: ImageFeed = { name: 'x', rgb: new Uint8Array(4 * 4 * 3), width: 4, height: 4, dims: [1, 3, 4, 4], offsetX: 0, offsetY: 0, order: 'rgb', mean: 0, std: 1 };
    assert.throws(() => fillImageTensor(feed, new Float32Array(10)), /buffer of 10 floats/);
    assert.throws(() => fillImageTensor({ ...feed, offsetY: 1 }, new Float32Array(48)), /does not fit/);
  });
});
