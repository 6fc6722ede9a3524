import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { feedBuffer, ImageFeedArena, simdFillExact } from '../../src/runtime/image-feed-arena.js';
import { fillImageTensor, imageFeedSize, type ImageFeed } from '../../src/runtime/image-feed.js';

function feedOf(width: number, height: number, pad: readonly [number, number, number, number], layout: Pick<ImageFeed, 'order' | 'mean' | 'std'>, seed: number): ImageFeed {
  const [offsetX, offsetY, padW, padH] = pad;
  const rgb = new Uint8Array(width * height * 3).map((_, i) => (i * 7919 + seed * 31 + (i >> 5)) % 256);
  return { name: 'x', rgb, width, height, dims: [1, 3, height + offsetY + padH, width + offsetX + padW], offsetX, offsetY, ...layout };
}

describe('image feed arena (WebAssembly SIMD fill)', () => {
  it('the SIMD arithmetic is taken only where it gives the table fill’s floats: SCRFD and YuNet/MiniFASNet yes, std 127.5 no', () => {
    assert.equal(simdFillExact(127.5, 128), true);
    assert.equal(simdFillExact(0, 1), true);
    assert.equal(simdFillExact(127, 128), true);
    assert.equal(simdFillExact(127.5, 127.5), false);
  });

  it('fills the same floats as fillImageTensor at every width, offset, padding, order and layout, reusing its buffers', () => {
    const arena = new ImageFeedArena();
    const layouts = [
      { order: 'rgb', mean: 127.5, std: 128 },
      { order: 'bgr', mean: 0, std: 1 },
      { order: 'rgb', mean: 127.5, std: 127.5 },
    ] as const;
    let cases = 0;
    for (const width of [1, 15, 16, 17, 33, 64, 67])
      for (const height of [1, 3, 16])
        for (const layout of layouts)
          for (const pad of [
            [0, 0, 0, 0],
            [2, 1, 5, 3],
            [0, 0, 3, 0],
            [0, 0, 0, 2],
          ] as const)
            // Twice per key: the second fill lands in a buffer holding the first image.
            for (const seed of [1, 2]) {
              const feed = feedOf(width, height, pad, layout, seed);
              const lease = arena.lease(`m:${feed.dims.join('x')}:${layout.mean}:${layout.order}`, feed);
              assert.ok(lease);
              const want = fillImageTensor(feed, new Float32Array(imageFeedSize(feed)));
              assert.deepEqual(lease.data, want, `${width}x${height} ${JSON.stringify(layout)} pad ${pad.join(',')} seed ${seed}`);
              lease.release();
              cases++;
            }
    assert.equal(cases, 7 * 3 * 3 * 4 * 2);
  });

  it('a detector-sized input is bit-identical, and its buffer is one region kept between runs', () => {
    const arena = new ImageFeedArena();
    const feed = feedOf(640, 480, [0, 0, 0, 0], { order: 'rgb', mean: 127.5, std: 128 }, 3);
    const first = arena.lease('det:640x480', feed)!;
    assert.deepEqual(first.data, fillImageTensor(feed, new Float32Array(imageFeedSize(feed))));
    const offset = first.data.byteOffset;
    first.release();
    const bytes = arena.bytes;
    const again = arena.lease('det:640x480', feedOf(640, 480, [0, 0, 0, 0], { order: 'rgb', mean: 127.5, std: 128 }, 4))!;
    assert.equal(again.data.byteOffset, offset);
    assert.equal(arena.bytes, bytes, 'no growth for a shape already held');
    again.release();
  });

  it('never hands out a buffer in use, and never grows the memory under a run in flight', () => {
    const arena = new ImageFeedArena();
    const small = feedOf(8, 8, [0, 0, 0, 0], { order: 'rgb', mean: 0, std: 1 }, 1);
    const held = arena.lease('a', small)!;
    assert.equal(arena.lease('a', small), null, 'the same buffer twice');
    const bytes = arena.bytes;
    assert.equal(arena.lease('b', feedOf(300, 300, [0, 0, 0, 0], { order: 'rgb', mean: 0, std: 1 }, 1)), null, 'a new buffer while one is out');
    assert.equal(arena.bytes, bytes);
    const viewBefore = held.data.buffer;
    held.release();
    const big = arena.lease('b', feedOf(300, 300, [0, 0, 0, 0], { order: 'rgb', mean: 0, std: 1 }, 1));
    assert.ok(big, 'granted once nothing is in flight');
    assert.notEqual(arena.bytes, bytes);
    assert.notEqual(big.data.buffer, viewBefore, 'the memory grew while no run held a view');
    big.release();
  });

  it('feeds whose width varies share one buffer per power-of-two class of widths, filled exactly at each width', () => {
    const arena = new ImageFeedArena();
    const layout = { order: 'bgr', mean: 127.5, std: 127.5, padByte: 127.5 } as const;
    const line = (width: number, padW: number) => ({ ...feedOf(width, 48, [0, 0, padW, 0], layout, width), widthVaries: true });
    // 1,033 to 2,048 columns: one class, sized for the widest.
    assert.deepEqual(feedBuffer('rec', line(1030, 2)), { key: 'rec:3x48x<=2048', capacity: 3 * 48 * 2048 });
    assert.deepEqual(feedBuffer('rec', line(2048, 0)), { key: 'rec:3x48x<=2048', capacity: 3 * 48 * 2048 });
    assert.equal(feedBuffer('rec', line(2049, 7)).key, 'rec:3x48x<=4096');
    // A fixed shape keeps its own buffer.
    assert.deepEqual(feedBuffer('det', feedOf(64, 48, [0, 0, 0, 0], layout, 1)), { key: 'det:1x3x48x64', capacity: 3 * 48 * 64 });
    let bytes = 0;
    for (const [width, padW] of [
      [2041, 7],
      [1501, 3],
      [1096, 0],
      [1030, 2],
    ] as const) {
      const feed = line(width, padW);
      const { key, capacity } = feedBuffer('rec', feed);
      const lease = arena.lease(key, feed, capacity)!;
      assert.ok(lease);
      assert.equal(lease.data.length, imageFeedSize(feed));
      assert.deepEqual(lease.data, fillImageTensor(feed, new Float32Array(imageFeedSize(feed))), `width ${width}`);
      // The padding is the float 0 the recogniser pads with.
      if (padW > 0) assert.equal(lease.data[width], 0);
      lease.release();
      if (bytes === 0) bytes = arena.bytes;
      assert.equal(arena.bytes, bytes, `no growth for width ${width} of a class already held`);
    }
    // A feed wider than its key's buffer is refused (the worker then fills a fresh array).
    arena.lease('small', line(8, 0))!.release();
    assert.equal(arena.lease('small', line(100, 4)), null);
  });
});
