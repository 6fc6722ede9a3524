/**
 * Does frontalizing turned faces help dlib's recognizer (face.profile commercial)? Every labelled
 * face of the shared images (bench/lib/face-pairs.ts), embedded as shipped and from a frontalized
 * chip (bench/lib/frontalize.ts: the landmark mesh rotated by the measured yaw, a piecewise-affine
 * warp, the self-occluded side filled by mirroring), the frontalized chip used only for faces
 * turned more than a yaw threshold. Prints, per mirror fill and threshold, TAR at FAR 0 over all
 * faces and over identities/ alone, and how many genuine pairs the change lowers; then the
 * threshold chosen on one half of random splits of the people (a fresh seed each run, printed)
 * and measured on the other half; the faces turned most; and the cost per face in the same run.
 *
 *   node --import tsx bench/eval-frontalize.ts [--seed N] [--detector yunet|scrfd_500m|scrfd_2.5g]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { VigilConfig } from '../src/config/schema.js';
import { dlibChipTemplate, dlibPointsFromMesh } from '../src/modules/face/dlib-chip.js';
import { alignFaceTo, DLIB_CHIP_SIZE } from '../src/modules/face/face-align.js';
import { cosine } from '../src/modules/face/face-recognizer.js';
import { RECOGNIZER_LANDMARKS } from '../src/modules/face/model-names.js';
import { FaceLandmarker } from '../src/modules/liveness/face-landmarker.js';
import { MIN_PRESENCE } from '../src/modules/liveness/face-measurer.js';
import { headPose } from '../src/modules/liveness/head-pose.js';
import { numberArg } from './lib/cli-args.js';
import { pct, tarAtZeroFar } from './lib/face-eval-data.js';
import { facePairs, labelledDetections, type LabelledFace } from './lib/face-pairs.js';
import { frontalChip, type MirrorFill } from './lib/frontalize.js';
import { freshSeed, seededRandom } from './lib/seeded.js';
import { machineLine, median } from './lib/stats.js';

const REC = 'face_rec_dlib_resnet_128d';
const FILLS: MirrorFill[] = ['none', 'soft', 'half'];
/** Yaw thresholds tried, in degrees; Infinity = never frontalize (the shipped chip). */
const THRESHOLDS = [Infinity, 40, 35, 30, 25, 20, 15, 10];
const SPLITS = 20;

const seed = numberArg('--seed', freshSeed());
const i = process.argv.indexOf('--detector');
const detector = (i > 0 ? process.argv[i + 1] : 'yunet') as VigilConfig['face']['detector'];
console.log(`<!-- ${machineLine()} -->\n\nseed ${seed}, detector ${detector}\n`);

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-frontal-'));
const config = loadConfig({ env: {}, overrides: { face: { detector }, server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } });
const app = await buildApp(config);
await app.ready();
const rec = (await app.face.openRecognizer(REC))!;
const landmarker = new FaceLandmarker(app.face.model(RECOGNIZER_LANDMARKS[REC]!), 'unit');
const template = dlibChipTemplate(DLIB_CHIP_SIZE);

const faces: LabelledFace[] = [];
const yaw = new Map<LabelledFace, number>();
const ms = { chip: [] as number[], frontal: [] as number[], landmarks: [] as number[], recognizer: [] as number[] };
const skipped: string[] = [];
for await (const { person, photo, file, img, face } of labelledDetections(app, skipped)) {
  const emb: Record<string, Float32Array> = { shipped: await rec.embed(await rec.align(img, face)) };
  const lm = await landmarker.run(img, { bbox: face.box, landmarks: face.kps });
  ms.landmarks.push(lm.runMs);
  const pose = headPose(lm.crop);
  let t0 = performance.now();
  const chip = alignFaceTo(img, dlibPointsFromMesh(lm.image), template, DLIB_CHIP_SIZE);
  ms.chip.push(performance.now() - t0);
  t0 = performance.now();
  await rec.embed(chip);
  ms.recognizer.push(performance.now() - t0);
  for (const fill of FILLS) {
    t0 = performance.now();
    const frontal = frontalChip(img, lm, pose.yaw, template, DLIB_CHIP_SIZE, fill);
    if (fill === 'soft') ms.frontal.push(performance.now() - t0);
    // Where the landmark model sees no face the service falls back to the five-point chip: so here.
    emb[fill] = lm.presence >= MIN_PRESENCE ? await rec.embed(frontal) : emb.shipped!;
  }
  const f: LabelledFace = { person, photo, file, emb };
  faces.push(f);
  yaw.set(f, lm.presence >= MIN_PRESENCE ? pose.yaw : 0);
}
await app.close();
rmSync(dataDir, { recursive: true, force: true });
const people = [...new Set(faces.map((f) => f.person))].sort();
console.log(`${faces.length} faces of ${people.length} people${skipped.length ? `; skipped: ${skipped.join(', ')}` : ''}`);
const turned = (t: number) => faces.filter((f) => Math.abs(yaw.get(f)!) > t).length;
console.log(`|yaw| over 15 / 20 / 25 / 30 / 35 degrees: ${[15, 20, 25, 30, 35].map(turned).join(' / ')} faces\n`);

const pick = (fill: MirrorFill, t: number) => (f: LabelledFace) => (Math.abs(yaw.get(f)!) > t ? f.emb[fill]! : f.emb.shipped!);
function measure(of: (f: LabelledFace) => Float32Array, keep: (f: LabelledFace) => boolean) {
  const { genuine, impostor } = facePairs(
    faces,
    (a, b) => cosine(of(a), of(b)),
    (a, b) => keep(a) && keep(b),
  );
  const imp = impostor.map((p) => p.s);
  return { genuine, tar: tarAtZeroFar(genuine, imp), top: Math.max(...imp), low: Math.min(...genuine) };
}

console.log('In sample (every threshold tried on every face):\n');
console.log('| fill | yaw over | faces changed | all faces: TAR at FAR 0 / top impostor / lowest genuine | genuine pairs lowered | identities/: TAR at FAR 0 / top impostor / lowest genuine |');
console.log('|---|---|---|---|---|---|');
const all = () => true;
const ids = (f: LabelledFace) => f.file.startsWith('faces/identities/');
const base = measure(pick('none', Infinity), all);
for (const fill of FILLS) {
  for (const t of THRESHOLDS) {
    if (t === Infinity && fill !== 'none') continue;
    const a = measure(pick(fill, t), all);
    const b = measure(pick(fill, t), ids);
    const lowered = a.genuine.filter((s, k) => s < base.genuine[k]! - 1e-6).length;
    const row = (m: typeof a) => `${pct(m.tar)} / ${m.top.toFixed(4)} / ${m.low.toFixed(4)}`;
    console.log(`| ${t === Infinity ? 'shipped' : fill} | ${t === Infinity ? '-' : t} | ${t === Infinity ? 0 : turned(t)} | ${row(a)} (${a.genuine.length} genuine) | ${lowered} | ${row(b)} |`);
  }
}

// Held out: the threshold chosen on one half of the people, measured on the other.
const random = seededRandom(seed);
const splits = Array.from({ length: SPLITS }, () => new Set(people.filter(() => random() < 0.5)));
console.log(`\nHeld out (${SPLITS} random splits of the people; per fill, the threshold with the highest TAR at FAR 0 on one half, ties to no change, measured on the other half):\n`);
console.log('| fill | halves | mean TAR at FAR 0, shipped | mean TAR at FAR 0, frontalized | halves better / worse | thresholds chosen |');
console.log('|---|---|---|---|---|---|');
for (const fill of FILLS) {
  let n = 0,
    shipped = 0,
    frontal = 0,
    better = 0,
    worse = 0;
  const chosen = new Map<number, number>();
  for (const half of splits) {
    for (const inA of [true, false]) {
      const tune = (f: LabelledFace) => half.has(f.person) === inA;
      const test = (f: LabelledFace) => half.has(f.person) !== inA;
      let best = Infinity,
        bestTar = -1;
      for (const t of THRESHOLDS) {
        const m = measure(pick(fill, t), tune);
        if (m.genuine.length >= 5 && m.tar > bestTar + 1e-9) [best, bestTar] = [t, m.tar];
      }
      const s = measure(pick(fill, Infinity), test);
      const fr = measure(pick(fill, best), test);
      if (s.genuine.length < 5) continue;
      n++;
      shipped += s.tar;
      frontal += fr.tar;
      if (fr.tar > s.tar + 1e-9) better++;
      if (fr.tar < s.tar - 1e-9) worse++;
      chosen.set(best, (chosen.get(best) ?? 0) + 1);
    }
  }
  const th = [...chosen].map(([t, c]) => `${t === Infinity ? 'none' : t}: ${c}`).join(', ');
  console.log(`| ${fill} | ${n} | ${pct(shipped / n)} | ${pct(frontal / n)} | ${better} / ${worse} | ${th} |`);
}

console.log('\nFaces turned more than 25 degrees: mean score against the other photos of the person (shipped chips) and the top impostor, per chip:\n');
console.log(`| face | yaw | ${['shipped', ...FILLS].join(' | ')} |`);
console.log(`|---|---|${['shipped', ...FILLS].map(() => '---').join('|')}|`);
for (const f of faces.filter((g) => Math.abs(yaw.get(g)!) > 25)) {
  const cells = ['shipped', ...FILLS].map((k) => {
    const others = faces.filter((g) => g !== f && g.photo !== f.photo);
    const gen = others.filter((g) => g.person === f.person).map((g) => cosine(f.emb[k]!, g.emb.shipped!));
    const imp = others.filter((g) => g.person !== f.person).map((g) => cosine(f.emb[k]!, g.emb.shipped!));
    return `${(gen.reduce((s, x) => s + x, 0) / gen.length).toFixed(4)} / ${Math.max(...imp).toFixed(4)}`;
  });
  console.log(`| ${f.file.replace('faces/', '')} (${f.person}) | ${yaw.get(f)!.toFixed(1)} | ${cells.join(' | ')} |`);
}

const m = (xs: number[]) => median(xs).toFixed(2);
console.log(
  `\nCost per face, medians of ${faces.length} faces in this run (main thread, JS): shipped chip ${m(ms.chip)} ms, frontalized chip (soft fill) ${m(ms.frontal)} ms (${(median(ms.frontal) / median(ms.chip)).toFixed(0)}x); for scale, the landmark model ${m(ms.landmarks)} ms and the recognizer ${m(ms.recognizer)} ms in the inference pool.`,
);
console.log(`<!-- ${machineLine()} -->`);
