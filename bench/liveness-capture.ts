// p50/p95 of the capture-evidence checks one liveness frame adds (sample the face region, the
// background thumbnail, bit-identity against four earlier frames and the neutral frame), and of
// the depth parallax check a turn frame adds (its grey face crop, the landmarks' rigid fit and
// the two patch matches against the baseline frame), on 640x360 Hamilton frames, against
// decoding the same frame (JPEG q90) in the same run.
//   node --import tsx bench/liveness-capture.ts
import sharp from 'sharp';
import { decodeImage } from '../src/core/image-decode.js';
import { captureProblem, identicalFraction, sampleFrame } from '../src/modules/liveness/capture-evidence.js';
import { greyPatch, patchStep, showsParallax } from '../src/modules/liveness/depth-parallax.js';
import { FaceMeasurer } from '../src/modules/liveness/face-measurer.js';
import { detectFrameFaces, faceBox } from '../src/modules/liveness/face-source.js';
import { testApp } from '../test/helpers/app.js';
import { clipFrames } from '../test/liveness/frames.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

console.log(machineLine());
const pngs = [...clipFrames([150, 151, 152, 153, 154]).values()];
const jpegs = await Promise.all(pngs.map((b) => sharp(b).jpeg({ quality: 90 }).toBuffer()));
const imgs = await Promise.all(jpegs.map((b) => decodeImage(b, { field: 'image', maxPixels: 1e7 })));
const box: [number, number, number, number] = [260, 60, 360, 180];
let kept = imgs.slice(0, 4).map((i) => sampleFrame(i, box));
const checks: number[] = [];
const decodes: number[] = [];
for (let k = 0; k < 350; k++) {
  let t0 = performance.now();
  await decodeImage(jpegs[k % 5]!, { field: 'image', maxPixels: 1e7 });
  if (k >= 50) decodes.push(performance.now() - t0);
  t0 = performance.now();
  const s = sampleFrame(imgs[k % 5]!, box, kept[0]!.stride);
  captureProblem(s, kept);
  identicalFraction(s, kept[0]!);
  kept = [...kept.slice(1), s];
  if (k >= 50) checks.push(performance.now() - t0);
}
// The parallax check: the baseline frame (facing the camera) and a turned frame, landmarks
// measured once by the models (not timed: they run in the inference pool for every frame anyway).
const t = await testApp({ document: { enabled: false }, person: { enabled: false }, identity: { enabled: false } } as never);
const measurer = new FaceMeasurer(t.app.face);
const turn = await Promise.all(
  [...clipFrames([150, 133]).values()].map(async (b) => {
    const img = await decodeImage(await sharp(b).jpeg({ quality: 90 }).toBuffer(), { field: 'image', maxPixels: 1e7 });
    const [face] = await detectFrameFaces(t.app.face, img);
    return { img, bbox: face!.box, points: (await measurer.measure(img, faceBox(face!))).points };
  }),
);
await t.close();
const [base, cur] = turn as [(typeof turn)[0], (typeof turn)[0]];
const step = patchStep(base.bbox);
const baseView = { patch: greyPatch(base.img, base.bbox, step), points: base.points };
const parallax: number[] = [];
let shown = 0;
for (let k = 0; k < 350; k++) {
  const t0 = performance.now();
  if (showsParallax(baseView, { patch: greyPatch(cur.img, cur.bbox, step), points: cur.points }, 'yaw')) shown++;
  if (k >= 50) parallax.push(performance.now() - t0);
}
const c = summarize(checks);
const d = summarize(decodes);
console.log(`capture checks: p50 ${fmt(c.p50)} ms, p95 ${fmt(c.p95)} ms; JPEG decode of the same frame: p50 ${fmt(d.p50)} ms, p95 ${fmt(d.p95)} ms; checks / decode p50 ${(c.p50 / d.p50).toFixed(2)}`);
const p = summarize(parallax);
console.log(`depth parallax check of a turn frame (${shown}/350 shown): p50 ${fmt(p.p50)} ms, p95 ${fmt(p.p95)} ms; parallax / decode p50 ${(p.p50 / d.p50).toFixed(2)}`);
console.log(machineLine());
