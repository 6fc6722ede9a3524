/**
 * False-accept rate against similarity threshold, measured on every face of the shared images
 * that carries an identity (identities/, the group photos of multi/, variants/, pad/), and the
 * impostor-tail fit behind src/modules/face/score-calibration.ts.
 *
 * For each recognizer: the fit over all impostor pairs (the JSON to ship in IMPOSTOR_FITS), the
 * FAR measured at each calibrated threshold with its Clopper-Pearson 95% interval and the TAR
 * there, for the fit and for the calibration the service ships; then a held-out check of the
 * tail model: people split in two at random (a fresh seed each run, printed), fitted on one
 * half, the predicted FAR compared with the FAR measured on the other half's pairs, and how far
 * the fitted thresholds move over half-samples of the people; and the EER and TAR at FAR 0
 * within each half of one more random split.
 *
 *   node --import tsx bench/eval-far.ts [--seed N] [--tail SHARE] [--detector scrfd_500m|scrfd_2.5g|yunet] [--json out.json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { VigilConfig } from '../src/config/schema.js';
import { DLIB_CENTRE, liftDescriptor, unliftDescriptor } from '../src/modules/face/dlib-metric.js';
import { cosine, EMBEDDING_SPACES, l2normalize } from '../src/modules/face/face-recognizer.js';
import { RECOGNIZER_MODELS } from '../src/modules/face/model-names.js';
import { FAR_TABLE, IMPOSTOR_FITS, ScoreCalibration, type ImpostorFit } from '../src/modules/face/score-calibration.js';
import { clopperPearson, impostorFit, tailThresholds, thresholdSpread } from './lib/far-stats.js';
import { freshSeed, seededRandom } from './lib/seeded.js';
import { eer, tarAtZeroFar } from './lib/face-eval-data.js';
import { facePairs, labelledFaces, type LabelledFace } from './lib/face-pairs.js';
import { machineLine } from './lib/stats.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const seed = Number(arg('--seed') ?? freshSeed());
const detector = (arg('--detector') ?? 'scrfd_500m') as VigilConfig['face']['detector'];
const TAIL_SHARE = Number(arg('--tail') ?? 0.03);
const SPLITS = 20;

const sci = (v: number) => (v === 0 ? '0' : v.toExponential(1));
const pct = (v: number) => `${(100 * v).toFixed(1)}%`;

console.log(`<!-- ${machineLine()} -->`);
console.log(`\nseed ${seed}, detector ${detector}\n`);

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-far-'));
const config = loadConfig({ env: {}, overrides: { face: { detector }, server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } });
const app = await buildApp(config);
await app.ready();
const recognizers = Object.values(RECOGNIZER_MODELS);
const { faces, skipped } = await labelledFaces(app, recognizers);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
const people = [...new Set(faces.map((f) => f.person))].sort();
console.log(`${faces.length} faces of ${people.length} people${skipped.length ? `; photos skipped (fewer faces found than labelled): ${skipped.join(', ')}` : ''}\n`);

function table(title: string, fit: ImpostorFit, genuine: number[], impostor: number[]): void {
  const cal = new ScoreCalibration(fit);
  console.log(`${title}\n`);
  console.log('| threshold | table FAR | raw cosine | impostor pairs accepted | measured FAR (95% CI) | TAR |');
  console.log('|---|---|---|---|---|---|');
  for (const row of FAR_TABLE) {
    const raw = cal.rawFor(row.threshold);
    const k = impostor.filter((s) => s >= raw).length;
    const [lo, hi] = clopperPearson(k, impostor.length);
    const tar = genuine.filter((s) => s >= raw).length / genuine.length;
    console.log(`| ${row.threshold} | ${sci(row.far)} | ${raw.toFixed(3)} | ${k} / ${impostor.length} | ${sci(k / impostor.length)} (${sci(lo)} to ${sci(hi)}) | ${pct(tar)} |`);
  }
  const top = Math.max(...impostor);
  console.log(
    `\nTop impostor pair raw ${top.toFixed(3)} (calibrated ${cal.calibrate(top).toFixed(3)}); TAR at FAR 0: ${pct(genuine.filter((s) => s > top).length / genuine.length)} of ${genuine.length} genuine pairs.\n`,
  );
}

/** People split in halves at random: the shipped procedure on one half, measured on the other (per scorer, on the same splits). */
function heldOut(rec: string, random: () => number): void {
  const targets = [1e-2, 3e-3, 1e-3];
  const splits = Array.from({ length: SPLITS }, () => new Set(people.filter(() => random() < 0.5)));
  for (const [name, emb] of scorersOf(rec)) {
    const sums = targets.map(() => ({ predicted: 0, measured: 0, pairs: 0 }));
    const score = (a: LabelledFace, b: LabelledFace) => cosine(emb(a), emb(b));
    for (const half of splits) {
      const side = (f: LabelledFace) => half.has(f.person);
      const fitHalf = facePairs(faces, score, (a, b) => side(a) && side(b)).impostor;
      const checkHalf = facePairs(faces, score, (a, b) => !side(a) && !side(b)).impostor.map((p) => p.s);
      if (fitHalf.length < 200 || checkHalf.length < 200) continue;
      const raws = tailThresholds(
        fitHalf.map((p) => p.s),
        TAIL_SHARE,
        targets,
      );
      targets.forEach((far, i) => {
        sums[i]!.predicted += far * checkHalf.length;
        sums[i]!.measured += checkHalf.filter((x) => x >= raws[i]!).length;
        sums[i]!.pairs += checkHalf.length;
      });
    }
    console.log(`Held-out check, ${name} (${SPLITS} random splits of the people; the tail fitted on one half, measured on the other):\n`);
    console.log('| FAR the fit promises | held-out impostor pairs | expected accepted | accepted | measured FAR (95% CI) |');
    console.log('|---|---|---|---|---|');
    targets.forEach((far, i) => {
      const t = sums[i]!;
      const [lo, hi] = clopperPearson(t.measured, t.pairs);
      console.log(`| ${sci(far)} | ${t.pairs} | ${t.predicted.toFixed(1)} | ${t.measured} | ${sci(t.measured / t.pairs)} (${sci(lo)} to ${sci(hi)}) |`);
    });
    console.log();
  }
}

/** Whether a recognizer's embeddings are dlib's lift (dlib-metric.ts), whose centre is fitted on the shared faces. */
const lifted = (rec: string) => EMBEDDING_SPACES[rec]!.lifted === true;

/** The raw descriptors behind lifted embeddings, and their mean over some faces: the lift's centre. */
const rawOf = (rec: string, f: LabelledFace) => unliftDescriptor(f.emb[rec]!);
function meanDescriptor(rec: string, of: LabelledFace[]): number[] {
  const sum = new Array<number>(DLIB_CENTRE.length).fill(0);
  for (const f of of) rawOf(rec, f).forEach((v, i) => (sum[i]! += v));
  return sum.map((v) => v / of.length);
}

/**
 * Separation within each half of one random split of the people: a figure on people the other
 * half does not contain. For the lifted recognizer also with the lift's centre refitted on the
 * other half only, so that no parameter was fitted on the people measured.
 */
function halves(rec: string, random: () => number): void {
  const half = new Set(people.filter(() => random() < 0.5));
  const parts = [
    ['A', true],
    ['B', false],
  ] as const;
  const measure = (inA: boolean, emb: (f: LabelledFace) => Float32Array) => {
    const { genuine, impostor } = facePairs(
      faces,
      (a, b) => cosine(emb(a), emb(b)),
      (a, b) => half.has(a.person) === inA && half.has(b.person) === inA,
    );
    const imp = impostor.map((p) => p.s);
    return `${genuine.length} genuine / ${imp.length} impostor pairs): EER ${pct(eer(genuine, imp))}, TAR at FAR 0 ${pct(tarAtZeroFar(genuine, imp))}`;
  };
  const line = parts.map(([name, inA]) => `half ${name} (${people.filter((p) => half.has(p) === inA).length} people, ${measure(inA, (f) => f.emb[rec]!)}`);
  console.log(`One random split of the people: ${line.join('; ')}.\n`);
  if (!lifted(rec)) return;
  const refit = parts.map(([name, inA]) => {
    const centre = meanDescriptor(
      rec,
      faces.filter((f) => half.has(f.person) !== inA),
    );
    const memo = new Map<LabelledFace, Float32Array>();
    const emb = (f: LabelledFace) => memo.get(f) ?? memo.set(f, liftDescriptor(rawOf(rec, f), centre)).get(f)!;
    return `half ${name} (${measure(inA, emb)}`;
  });
  console.log(`The same halves with the lift's centre fitted on the other half: ${refit.join('; ')}.\n`);
}

/** The shipped embeddings, and for the lifted recognizer the cosine of its L2-normalised raw descriptors (same chips), the score the lift replaced. */
function scorersOf(rec: string): [string, (f: LabelledFace) => Float32Array][] {
  const scorers: [string, (f: LabelledFace) => Float32Array][] = [['as shipped', (f) => f.emb[rec]!]];
  if (lifted(rec)) {
    const memo = new Map<LabelledFace, Float32Array>();
    scorers.push(['norm-blind cosine of the raw descriptors', (f) => memo.get(f) ?? memo.set(f, l2normalize(Float32Array.from(rawOf(rec, f)))).get(f)!]);
  }
  return scorers;
}

/**
 * Over SPLITS random splits of the people, each half scored alone: the mean EER and TAR at FAR 0
 * and how many halves put every genuine pair above every impostor pair. For the lifted
 * recognizer also with the cosine of its L2-normalised raw descriptors (same chips), the score it
 * replaced.
 */
function manyHalves(rec: string, random: () => number): void {
  const scorers = scorersOf(rec);
  const sums = scorers.map(() => ({ eer: 0, tar: 0, all: 0, n: 0 }));
  for (let s = 0; s < SPLITS; s++) {
    const half = new Set(people.filter(() => random() < 0.5));
    for (const inA of [true, false]) {
      scorers.forEach(([, emb], k) => {
        const { genuine, impostor } = facePairs(
          faces,
          (a, b) => cosine(emb(a), emb(b)),
          (a, b) => half.has(a.person) === inA && half.has(b.person) === inA,
        );
        if (genuine.length < 5 || impostor.length < 20) return;
        const imp = impostor.map((p) => p.s);
        const tar = tarAtZeroFar(genuine, imp);
        const t = sums[k]!;
        t.eer += eer(genuine, imp);
        t.tar += tar;
        t.all += tar === 1 ? 1 : 0;
        t.n++;
      });
    }
  }
  const lines = scorers.map(([name], k) => {
    const t = sums[k]!;
    return `${name}: mean EER ${pct(t.eer / t.n)}, mean TAR at FAR 0 ${pct(t.tar / t.n)}, every genuine pair above every impostor in ${t.all} of ${t.n} halves`;
  });
  console.log(`Over ${SPLITS} random splits of the people, each half alone: ${lines.join('; ')}.\n`);
}

const random = seededRandom(seed);
const fits: Record<string, ImpostorFit> = {};
for (const rec of recognizers) {
  const { genuine, impostor } = facePairs(faces, (a, b) => cosine(a.emb[rec]!, b.emb[rec]!));
  const scores = impostor.map((p) => p.s);
  console.log(`### ${rec}\n`);
  const fit = impostorFit(scores, TAIL_SHARE, `${scores.length} impostor pairs among ${faces.length} faces of ${people.length} people (every identified face of the shared images)`);
  const spread = thresholdSpread(
    impostor,
    TAIL_SHARE,
    FAR_TABLE.map((r) => r.far),
    random,
  );
  console.log('How the fitted raw threshold moves with the people measured (200 half-samples of the people; 5th / 50th / 95th percentile):\n');
  console.log(FAR_TABLE.map((r, i) => `${r.threshold} (FAR ${sci(r.far)}): ${spread[i]!.map((v) => v.toFixed(3)).join(' / ')}`).join('; ') + '\n');
  fits[rec] = fit;
  table('Fitted in this run:', fit, genuine, scores);
  const shipped = IMPOSTOR_FITS[rec];
  if (shipped) table('With the calibration the service ships:', shipped, genuine, scores);
  heldOut(rec, random);
  halves(rec, random);
  manyHalves(rec, random);
}
console.log('Fits for IMPOSTOR_FITS:\n\n```json\n' + JSON.stringify(fits, null, 1) + '\n```');
for (const rec of recognizers.filter(lifted)) {
  const centre = meanDescriptor(rec, faces).map((v) => Number(v.toFixed(4)));
  console.log(`\nMean raw descriptor of ${rec} over the ${faces.length} faces (DLIB_CENTRE in dlib-metric.ts):\n\n${JSON.stringify(centre)}`);
}
const jsonOut = arg('--json');
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ seed, detector, fits }, null, 1));
