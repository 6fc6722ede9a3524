// Would the other TFJS face models in @vladmandic/human earn a place? Scores of its anti-spoof
// and liveness models on the labelled presentation-attack images, and of its emotion model's
// "happy" class on the identity photos (for the SMILE challenge).
//   node --import tsx bench/eval-tfjs-extras.ts
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { decodeImage, type RgbImage } from '../src/core/image-decode.js';
import { packageRoot } from '../src/core/package-root.js';
import { cropRegion, faceRegion } from '../src/modules/face/face-crop.js';
import { testApp } from '../test/helpers/app.js';
import { candidateSession } from './lib/attr-candidates.js';
import { machineLine } from './lib/stats.js';

const FACES = join(packageRoot(), '..', 'shared', 'testdata', 'faces');
const manifest = JSON.parse(readFileSync(join(packageRoot(), '..', 'shared', 'testdata', 'MANIFEST.json'), 'utf8')) as {
  files: { file: string; labels?: { liveness?: string } }[];
};
const HUMAN = '@vladmandic/human@3.3.6/models';
const session = (name: string) => candidateSession({ name, ref: `${HUMAN}/${name}.json`, size: 0, run: () => Promise.reject(new Error('unused')) });
const antispoof = await session('antispoof');
const liveness = await session('liveness');
const emotion = await session('emotion');
const t = await testApp();

async function face(file: string): Promise<{ img: RgbImage; region: ReturnType<typeof faceRegion> } | undefined> {
  const img = await decodeImage(readFileSync(join(FACES, file)), { field: 'image', maxPixels: 40_000_000 });
  const [f] = await t.app.face.detect(img, { maxFaces: 1 });
  return f && { img, region: faceRegion(f.box, f.kps, 1.0, false) };
}
const nhwc = (crop: Buffer, size: number) =>
  new ort.Tensor(
    'float32',
    Float32Array.from(crop, (v) => v / 255),
    [1, size, size, 3],
  );

console.log(machineLine());
console.log('\n| image | label | human antispoof (1 = real) | human liveness [live, spoof] |');
console.log('|---|---|---|---|');
const pad = manifest.files.filter((f) => f.file.startsWith('faces/pad/'));
const live = ['identities/bbt_penny/penny1.png', 'identities/fr_barack_obama/obama.jpg', 'identities/fr_joe_biden/biden2.jpg', 'identities/fr_rose_leslie/img1.jpg'];
for (const [file, label] of [...pad.map((f) => [f.file.slice(6), f.labels?.liveness ?? '?'] as const), ...live.map((f) => [f, 'live (identity photo)'] as const)]) {
  const f = await face(file);
  if (!f) {
    console.log(`| ${file} | ${label} | no face | no face |`);
    continue;
  }
  const a = await antispoof.run({ conv2d_input: nhwc(cropRegion(f.img, f.region, 128), 128) });
  const l = await liveness.run({ conv2d_1_input: nhwc(cropRegion(f.img, f.region, 32), 32) });
  const lv = Array.from(l['Identity']!.data as Float32Array).map((v) => v.toFixed(3));
  console.log(`| ${file} | ${label} | ${(a['Identity']!.data as Float32Array)[0]!.toFixed(3)} | ${lv.join(', ')} |`);
}

console.log('\n| identity photo | emotion: happy | top class |');
console.log('|---|---|---|');
const CLASSES = ['angry', 'disgust', 'fear', 'happy', 'sad', 'surprise', 'neutral'];
for (const id of readdirSync(join(FACES, 'identities')).filter((d) => d.startsWith('fr_'))) {
  for (const file of readdirSync(join(FACES, 'identities', id))) {
    const f = await face(join('identities', id, file));
    if (!f) continue;
    const crop = cropRegion(f.img, f.region, 64);
    const grey = new Float32Array(64 * 64);
    for (let i = 0; i < grey.length; i++) grey[i] = ((crop[i * 3]! * 0.2989 + crop[i * 3 + 1]! * 0.587 + crop[i * 3 + 2]! * 0.114) / 255 - 0.5) * 2;
    const p = Array.from((await emotion.run({ input_1: new ort.Tensor('float32', grey, [1, 64, 64, 1]) }))['Identity']!.data as Float32Array);
    const top = p.indexOf(Math.max(...p));
    console.log(`| ${id}/${file} | ${p[3]!.toFixed(3)} | ${CLASSES[top]} ${p[top]!.toFixed(2)} |`);
  }
}
await t.close();
