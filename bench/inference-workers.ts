/**
 * How the inference pool should use the cores: each model alone at one and at two
 * onnxruntime intra-op threads (one worker; two threads is what Vigil ran before the pool,
 * onnxruntime's own choice on this box), then two runs at a time, on one worker with two
 * threads (the baseline) against two workers with one thread each (the pool's layout).
 * Everything goes through the daemon's own InferencePool, so the worker round trip is in
 * every figure.
 *
 *   node --import tsx bench/inference-workers.ts [--n 40]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { packageRoot } from '../src/core/package-root.js';
import { readProfile } from '../src/runtime/hw-profile.js';
import { InferencePool } from '../src/runtime/inference-pool.js';
import type { WireTensor, WorkerModel } from '../src/runtime/inference-worker.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '40' } } });
const N = Number(values.n);
const MODELS: [string, string, 'float32' | 'float16', number[]][] = [
  ['SCRFD-500m 640x480', 'face_det_scrfd_500m_kps.onnx', 'float32', [1, 3, 480, 640]],
  ['faceplugin 512d', 'face_rec_faceplugin_512d.onnx', 'float32', [1, 3, 112, 112]],
  ['MiniFASNetV2 80x80', 'antispoof_minifasnet_v2_scale2.7_80x80.onnx', 'float32', [1, 3, 80, 80]],
  ['HSE FaceRes 224', 'face_attr_hse_faceres_224.onnx', 'float32', [1, 224, 224, 3]],
  ['face landmarks v2 256 fp16', 'face_landmarks_mediapipe_v2_478_fp16.onnx', 'float16', [1, 3, 256, 256]],
];
const log = pino({ level: 'silent' });
const profile = readProfile('x86-cpu');

function feed(model: WorkerModel, type: 'float32' | 'float16', dims: number[]): WireTensor[] {
  const size = dims.reduce((a, b) => a * b, 1);
  // Mid-grey input (0.5 as IEEE half is 0x3800): plausible activations, no denormals.
  const data = type === 'float16' ? new Uint16Array(size).fill(0x3800) : new Float32Array(size).fill(0.5);
  return [{ name: model.inputNames[0]!, type, data, dims }];
}

/** Per-run ms of `streams` loops running back to back at once, and the runs per second overall. */
async function measure(model: WorkerModel, type: 'float32' | 'float16', dims: number[], streams: number) {
  for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: streams }, () => model.run(feed(model, type, dims))));
  const ms: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: streams }, async () => {
      for (let i = 0; i < N; i++) {
        const s = performance.now();
        await model.run(feed(model, type, dims));
        ms.push(performance.now() - s);
      }
    }),
  );
  return { p50: summarize(ms).p50, perSecond: (streams * N * 1000) / (performance.now() - t0) };
}

async function layout(workers: number, threads: number, file: string) {
  const pool = new InferencePool(workers, log);
  const model = await pool.open(file, join(packageRoot(), 'models', file), profile, -1, { intraOpThreads: threads });
  return { pool, model };
}

console.log(machineLine());
console.log(`n=${N} runs per stream; p50 ms per run, and runs/s where two streams run at once\n`);
console.log('| model | 1 worker, 1 thread | 1 worker, 2 threads (before) | 2 at once: 1 worker, 2 threads | 2 at once: 2 workers, 1 thread each (pool) | pool / before, runs/s |');
console.log('|---|---|---|---|---|---|');
for (const [label, file, type, dims] of MODELS) {
  const one = await layout(1, 1, file);
  const single1 = await measure(one.model, type, dims, 1);
  await one.pool.close();
  const two = await layout(1, 2, file);
  const single2 = await measure(two.model, type, dims, 1);
  const before = await measure(two.model, type, dims, 2);
  await two.pool.close();
  const pooled = await layout(2, 1, file);
  const pool = await measure(pooled.model, type, dims, 2);
  await pooled.pool.close();
  console.log(
    `| ${label} | ${fmt(single1.p50)} | ${fmt(single2.p50)} | ${fmt(before.p50)} (${before.perSecond.toFixed(0)}/s) | ${fmt(pool.p50)} (${pool.perSecond.toFixed(0)}/s) | ${(pool.perSecond / before.perSecond).toFixed(2)} |`,
  );
}
console.log(`\n${machineLine()}`);
