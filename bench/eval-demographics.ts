// Gender accuracy and age estimates on ../shared/testdata/faces/identities, and the per-face cost.
//   node --import tsx bench/eval-demographics.ts               the shipped model, as the daemon runs it
//   node --import tsx bench/eval-demographics.ts --candidates  every TFJS candidate x crop variant
// Faces come from the daemon's face service (default detector SCRFD-500m, largest face per image).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeImage, type RgbImage } from '../src/core/image-decode.js';
import { packageRoot } from '../src/core/package-root.js';
import { floatFeed } from '../src/runtime/inference-worker.js';
import { CROP_LEVEL, CROP_SCALE, DEMOGRAPHICS_MODEL, estimateDemographics } from '../src/modules/face/demographics.js';
import { cropRegion, faceRegion } from '../src/modules/face/face-crop.js';
import type { RawFace } from '../src/modules/face/face-geometry.js';
import { emptyTimings, type StageTimings } from '../src/modules/face/face-service.js';
import { testApp } from '../test/helpers/app.js';
import { CANDIDATES, candidateSession } from './lib/attr-candidates.js';
import { machineLine, row, summarize, timeIt } from './lib/stats.js';

const IDENTITIES = join(packageRoot(), '..', 'shared', 'testdata', 'faces', 'identities');
/** The labels (no age labels exist for this data). */
const FEMALE = new Set(['bbt_amy', 'bbt_bernadette', 'bbt_penny', 'fr_rose_leslie']);

interface Sample {
  identity: string;
  file: string;
  img: RgbImage;
  face: RawFace;
}

const t = await testApp({ face: { enable_demographics: true } });
const faces = t.app.face;
const samples: Sample[] = [];
for (const identity of readdirSync(IDENTITIES).sort()) {
  for (const file of readdirSync(join(IDENTITIES, identity)).sort()) {
    const img = await decodeImage(readFileSync(join(IDENTITIES, identity, file)), { field: 'image', maxPixels: 40_000_000 });
    const [face] = await faces.detect(img, { maxFaces: 1 });
    if (!face) console.log(`no face found in ${identity}/${file} (counted as wrong)`);
    else samples.push({ identity, file, img, face });
  }
}
const total = readdirSync(IDENTITIES).reduce((n, id) => n + readdirSync(join(IDENTITIES, id)).length, 0);
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log(machineLine());
console.log(`images: ${total}, faces found: ${samples.length}\n`);

if (process.argv.includes('--candidates')) {
  const variants: [number, boolean][] = [
    [1.0, false],
    [1.2, false],
    [1.4, false],
    [1.0, true],
    [1.2, true],
    [1.4, true],
  ];
  console.log('| model | crop | gender correct | min margin | median age per identity |');
  console.log('|---|---|---|---|---|');
  for (const c of CANDIDATES) {
    const session = await candidateSession(c);
    for (const [scale, level] of variants) {
      let correct = 0;
      let margin = Infinity;
      const ages = new Map<string, number[]>();
      for (const s of samples) {
        const crop = cropRegion(s.img, faceRegion(s.face.box, s.face.kps, scale, level), c.size);
        const est = await c.run(session, crop);
        if (!Number.isNaN(est.male)) {
          const m = FEMALE.has(s.identity) ? 0.5 - est.male : est.male - 0.5;
          margin = Math.min(margin, m);
          if (m > 0) correct++;
        }
        if (!Number.isNaN(est.age)) ages.set(s.identity, [...(ages.get(s.identity) ?? []), est.age]);
      }
      const gender = Number.isFinite(margin) ? `${correct}/${total}` : '-';
      const ageText = [...ages].map(([id, a]) => `${id.replace(/^(bbt|fr)_/, '')} ${Math.round(median(a))}`).join(', ') || '-';
      console.log(`| ${c.name} | ${scale}x${level ? ' levelled' : ''} | ${gender} | ${Number.isFinite(margin) ? margin.toFixed(3) : '-'} | ${ageText} |`);
    }
    await session.release();
  }
  await t.close();
  process.exit(0);
}

const model = t.app.vigil.models.get(DEMOGRAPHICS_MODEL);
// The face service runs it in its inference worker; `model` (the registry's session) is the raw baseline.
const workerModel = t.app.face.model(DEMOGRAPHICS_MODEL);
console.log(`model: ${DEMOGRAPHICS_MODEL} (${model.entry.file}), crop ${CROP_SCALE}x the detector box${CROP_LEVEL ? ', eyes levelled' : ''}, provider ${model.provider}\n`);
console.log('| identity | label | images | gender correct | age: median (min-max) |');
console.log('|---|---|---|---|---|');
let correct = 0;
for (const identity of readdirSync(IDENTITIES).sort()) {
  const mine = samples.filter((s) => s.identity === identity);
  const label = FEMALE.has(identity) ? 'F' : 'M';
  const results = await Promise.all(mine.map(async (s) => (await estimateDemographics(workerModel, s.img, [s.face]))[0]!));
  const ok = results.filter((r) => r.gender === label).length;
  correct += ok;
  const ages = results.map((r) => r.age);
  const n = readdirSync(join(IDENTITIES, identity)).length;
  console.log(`| ${identity} | ${label} | ${n} | ${ok}/${n} | ${median(ages)} (${Math.min(...ages)}-${Math.max(...ages)}) |`);
}
console.log(`\ngender accuracy: ${correct}/${total} = ${((100 * correct) / total).toFixed(1)}%\n`);

// Per-face cost: the face service's stages for the largest face of one colour photo and one
// 150x150 crop (detection is the baseline), and the demographics model's session.run alone.
const STAGES: (keyof StageTimings)[] = ['detect', 'align', 'embed', 'quality', 'liveness', 'demographics'];
console.log('| stage (ms per face) | n | p50 | p95 | ratio to detect p50 |');
console.log('|---|---|---|---|---|');
for (const s of [samples.find((x) => x.file === 'obama.jpg'), samples.find((x) => x.file === 'penny1.png')]) {
  if (!s) continue;
  const runs: StageTimings[] = [];
  for (let i = 0; i < 33; i++) {
    const timings = emptyTimings();
    await faces.analyze(s.img, { maxFaces: 1, timings });
    if (i >= 3) runs.push(timings);
  }
  const detect = summarize(runs.map((r) => r.detect));
  const label = `${s.identity}/${s.file} (${s.img.width}x${s.img.height})`;
  for (const stage of STAGES) {
    const sum = summarize(runs.map((r) => r[stage]));
    console.log(row(`${label}: ${stage}`, sum, (sum.p50 / detect.p50).toFixed(2)));
  }
  const crop = cropRegion(s.img, faceRegion(s.face.box, s.face.kps, CROP_SCALE, CROP_LEVEL), 224);
  const infer = summarize(await timeIt(30, () => model.runner.run([floatFeed(model.entry.inputs[0]!.name, Float32Array.from(crop), [1, 224, 224, 3])])));
  console.log(row(`${label}: demographics session.run alone`, infer, (infer.p50 / detect.p50).toFixed(2)));
}
await t.close();
