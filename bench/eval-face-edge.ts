/**
 * Detection of faces cut by the frame edge. Every face the detector finds in the shared
 * identity and group photos is the reference; for each, crops are cut from its photo with the
 * frame's edge passing through the face so that a given fraction of the face box lies outside,
 * on a side drawn at random (fresh seed each run, printed), the crop reaching 1 to 2 face
 * sizes past the face on the other sides (drawn too). A cut face counts as found when a
 * detection overlaps the visible part of its reference box with IoU >= 0.3. Each crop is run
 * as the daemon runs it and with a black margin around the detector input (edgePad), with the
 * detector's model time for both.
 *
 *   node --import tsx bench/eval-face-edge.ts [--seed N] [--detector scrfd_500m|yunet] [--pad 0.1]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { VigilConfig } from '../src/config/schema.js';
import { decodeImage, type RgbImage } from '../src/core/image-decode.js';
import { emptyTimings } from '../src/modules/face/face-service.js';
import { faceFiles } from './lib/face-eval-data.js';
import { freshSeed, seededRandom } from './lib/seeded.js';
import { machineLine } from './lib/stats.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const seed = Number(arg('--seed') ?? freshSeed());
const detector = (arg('--detector') ?? 'scrfd_500m') as VigilConfig['face']['detector'];
const PAD = Number(arg('--pad') ?? 0.1);
const FRACTIONS = [0, 0.1, 0.2, 0.3, 0.4, 0.5];
const rand = seededRandom(seed);

type Box = [number, number, number, number];
const iou = (a: Box, b: Box) => {
  const w = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const h = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = w * h;
  return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
};

/** The crop rectangle in the photo, or null when the photo leaves no room for it. */
function cutWindow(box: Box, fraction: number, W: number, H: number): { rect: Box; side: string } {
  const [x1, y1, x2, y2] = box;
  const fw = x2 - x1,
    fh = y2 - y1;
  const margin = () => (1 + rand()) * Math.max(fw, fh);
  let rect: Box = [x1 - margin(), y1 - margin(), x2 + margin(), y2 + margin()];
  const side = ['left', 'right', 'top', 'bottom'][Math.floor(rand() * 4)]!;
  if (side === 'left') rect[0] = x1 + fraction * fw;
  if (side === 'right') rect[2] = x2 - fraction * fw;
  if (side === 'top') rect[1] = y1 + fraction * fh;
  if (side === 'bottom') rect[3] = y2 - fraction * fh;
  rect = [Math.max(0, Math.round(rect[0])), Math.max(0, Math.round(rect[1])), Math.min(W, Math.round(rect[2])), Math.min(H, Math.round(rect[3]))];
  return { rect, side };
}

async function crop(img: RgbImage, r: Box): Promise<RgbImage> {
  const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .extract({ left: r[0], top: r[1], width: r[2] - r[0], height: r[3] - r[1] })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

console.log(`<!-- ${machineLine()} -->`);
console.log(`\nseed ${seed}, detector ${detector}, edge pad ${PAD}\n`);
const dataDir = mkdtempSync(join(tmpdir(), 'vigil-edge-'));
const config = loadConfig({
  env: {},
  overrides: { face: { detector, enable_liveness: false, enable_demographics: false }, server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } },
});
const app = await buildApp(config);
await app.ready();
const face = app.face;
const found = FRACTIONS.map(() => ({ n: 0, plain: 0, padded: 0 }));
const ms = { plain: 0, padded: 0 };
for (const f of [...faceFiles('identities'), ...faceFiles('multi')]) {
  const img = await decodeImage(readFileSync(f.path), { field: 'image', maxPixels: 100_000_000 });
  const refs = await face.detect(img, { maxFaces: 20 });
  for (const ref of refs) {
    for (const [k, fraction] of FRACTIONS.entries()) {
      const { rect } = cutWindow(ref.box, fraction, img.width, img.height);
      if (rect[2] - rect[0] < 16 || rect[3] - rect[1] < 16) continue;
      const piece = await crop(img, rect);
      const visible: Box = [Math.max(ref.box[0], rect[0]) - rect[0], Math.max(ref.box[1], rect[1]) - rect[1], Math.min(ref.box[2], rect[2]) - rect[0], Math.min(ref.box[3], rect[3]) - rect[1]];
      const hit = (faces: { box: Box }[]) => faces.some((d) => iou(d.box, visible) >= 0.3);
      const t1 = emptyTimings();
      const plain = await face.detect(piece, { maxFaces: 20, edgePad: 0, timings: t1 });
      const t2 = emptyTimings();
      const padded = await face.detect(piece, { maxFaces: 20, edgePad: PAD, timings: t2 });
      ms.plain += t1.detect_model;
      ms.padded += t2.detect_model;
      found[k]!.n++;
      if (hit(plain)) found[k]!.plain++;
      if (hit(padded)) found[k]!.padded++;
    }
  }
}
await app.close();
rmSync(dataDir, { recursive: true, force: true });
const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;
console.log(`| share of the face outside the frame | cut faces | found | found, input padded ${PAD} per side |`);
console.log('|---|---|---|---|');
for (const [k, fr] of FRACTIONS.entries()) console.log(`| ${fr} | ${found[k]!.n} | ${pct(found[k]!.plain, found[k]!.n)} | ${pct(found[k]!.padded, found[k]!.n)} |`);
console.log(`\ndetector model time over all crops: ${ms.plain.toFixed(0)} ms plain, ${ms.padded.toFixed(0)} ms padded (x${(ms.padded / ms.plain).toFixed(2)})`);
