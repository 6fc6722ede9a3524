/**
 * The inference worker's image fill: fillImageTensor's JavaScript (four pixels a word) against
 * the WebAssembly SIMD fill of image-feed-arena.ts, the copy of the bytes into its memory
 * included, in alternating blocks, for the face models' input shapes.
 *   node --import tsx bench/image-fill.ts [--runs 400]
 */
import { parseArgs } from 'node:util';
import { ImageFeedArena } from '../src/runtime/image-feed-arena.js';
import { fillImageTensor, imageFeedSize, type ImageFeed } from '../src/runtime/image-feed.js';
import { summarize } from './lib/stats.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '400' } } });
const RUNS = Number(values.runs);

const shapes: [string, number, number, ImageFeed['order'], number, number][] = [
  ['SCRFD detector 640x480', 640, 480, 'rgb', 127.5, 128],
  ['YuNet detector 640x480', 640, 480, 'bgr', 0, 1],
  ['MiniFASNet crop 80x80', 80, 80, 'bgr', 0, 1],
];

console.log('| input | JS fill p50 / p95 ms | SIMD fill p50 / p95 ms | SIMD / JS (p50) |');
console.log('|---|---|---|---|');
for (const [label, width, height, order, mean, std] of shapes) {
  const rgb = new Uint8Array(width * height * 3).map((_, i) => (i * 7919) & 255);
  const feed: ImageFeed = { name: 'x', rgb, width, height, dims: [1, 3, height, width], offsetX: 0, offsetY: 0, order, mean, std };
  const out = new Float32Array(imageFeedSize(feed));
  const arena = new ImageFeedArena();
  const js: number[] = [];
  const simd: number[] = [];
  for (let block = 0; block < RUNS / 20; block++) {
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      fillImageTensor(feed, out);
      js.push(performance.now() - t0);
    }
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      arena.lease('k', feed)!.release();
      simd.push(performance.now() - t0);
    }
  }
  const a = summarize(js);
  const b = summarize(simd);
  console.log(`| ${label} | ${a.p50.toFixed(3)} / ${a.p95.toFixed(3)} | ${b.p50.toFixed(3)} / ${b.p95.toFixed(3)} | ${(b.p50 / a.p50).toFixed(2)} |`);
}
