/**
 * Where the face models' CPU time goes, operator by operator: onnxruntime's own profiler over
 * each face model at one intra-op thread (the pool's layout for the per-face models) on a real
 * input (the 640x480 Obama photo, its aligned face and its crops as the daemon cuts them), for
 * the file as shipped and for the graph the daemon's CPU sessions get (cpu-graph-rewrite.ts).
 * Prints per model the mean wall time of a run and the operators that take the most of it.
 *
 *   node --import tsx bench/op-profile.ts [--runs 30]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { packageRoot } from '../src/core/package-root.js';
import { alignFace, cropResize } from '../src/modules/face/face-align.js';
import { cropRegion, faceRegion } from '../src/modules/face/face-crop.js';
import type { Box, Point } from '../src/modules/face/face-geometry.js';
import { imageTensorData, RECOGNIZER_LAYOUTS } from '../src/modules/face/face-recognizer.js';
import { livenessCropBox } from '../src/modules/face/passive-liveness.js';
import { SCRFD_LAYOUT } from '../src/modules/face/scrfd-decoder.js';
import { rewriteForCpu } from '../src/runtime/cpu-graph-rewrite.js';
import { machineLine } from './lib/stats.js';

const ROOT = packageRoot();
const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30;

const photo = join(resolve(ROOT, '..', 'shared', 'testdata', 'faces'), 'identities', 'fr_barack_obama', 'obama.jpg');
const { data, info } = await sharp(photo).resize(640, 480, { fit: 'cover', position: 'top' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
const img = { data, width: info.width, height: info.height };
// The face in that crop as SCRFD-500m finds it (box and 5 landmarks, rounded).
const box: Box = [230, 60, 400, 290];
const kps: Point[] = [
  [283, 160],
  [355, 160],
  [320, 200],
  [290, 245],
  [350, 245],
];
const liveness = (scale: number) => {
  const [x1, y1, x2, y2] = livenessCropBox(img.width, img.height, box, scale);
  return imageTensorData(cropResize(img, x1, y1, x2, y2, 80, 80), { order: 'bgr', mean: 0, std: 1 });
};
const models: [string, Float32Array, number[]][] = [
  ['face_det_scrfd_500m_kps.onnx', imageTensorData(img, SCRFD_LAYOUT), [1, 3, 480, 640]],
  ['face_rec_faceplugin_512d.onnx', imageTensorData(alignFace(img, kps), RECOGNIZER_LAYOUTS.face_rec_faceplugin_512d!), [1, 3, 112, 112]],
  ['antispoof_minifasnet_v2_scale2.7_80x80.onnx', liveness(2.7), [1, 3, 80, 80]],
  ['antispoof_minifasnet_v1se_scale4.0_80x80.onnx', liveness(4.0), [1, 3, 80, 80]],
  ['face_attr_hse_faceres_224.onnx', Float32Array.from(cropRegion(img, faceRegion(box, kps, 1.2, true), 224)), [1, 224, 224, 3]],
];

interface ProfileEvent {
  cat: string;
  name: string;
  dur: number;
  args: { op_name?: string };
}

async function profile(bytes: Uint8Array, input: Float32Array, dims: number[]): Promise<{ runMs: number; ops: [string, number][] }> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-op-profile-'));
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    intraOpNumThreads: 1,
    enableProfiling: true,
    profileFilePrefix: join(dir, 'profile'),
  });
  const feeds = { [session.inputNames[0]!]: new ort.Tensor('float32', input, dims) };
  for (let i = 0; i < RUNS; i++) await session.run(feeds);
  session.endProfiling();
  await session.release();
  const file = readdirSync(dir).find((f) => f.endsWith('.json'))!;
  const events = JSON.parse(readFileSync(join(dir, file), 'utf8')) as ProfileEvent[];
  rmSync(dir, { recursive: true, force: true });
  const byOp = new Map<string, number>();
  let runs = 0;
  for (const e of events) {
    if (e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.args.op_name) byOp.set(e.args.op_name, (byOp.get(e.args.op_name) ?? 0) + e.dur / RUNS / 1000);
    if (e.cat === 'Session' && e.name === 'model_run') runs += e.dur / RUNS / 1000;
  }
  return { runMs: runs, ops: [...byOp].sort((a, b) => b[1] - a[1]) };
}

console.log(machineLine());
console.log(`onnxruntime profiler, one intra-op thread, ${RUNS} runs each on real input; ms per run (mean)\n`);
console.log('| model | graph | run ms | top operators, ms per run |');
console.log('|---|---|---|---|');
for (const [file, input, dims] of models) {
  const shipped = readFileSync(join(ROOT, 'models', file));
  const rewrite = rewriteForCpu(shipped);
  const graphs: [string, Uint8Array][] = [['as shipped', shipped]];
  if (rewrite.bytes !== shipped) graphs.push([`rewritten (${rewrite.prelu} PRelu, ${rewrite.clip} ReLU6 chains)`, rewrite.bytes]);
  for (const [label, bytes] of graphs) {
    const { runMs, ops } = await profile(bytes, input.slice(), dims);
    const top = ops
      .slice(0, 5)
      .map(([op, ms]) => `${op} ${ms.toFixed(2)}`)
      .join(', ');
    console.log(`| ${file.replace('.onnx', '')} | ${label} | ${runMs.toFixed(2)} | ${top} |`);
  }
}
