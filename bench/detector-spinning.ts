/**
 * The face detector alone, opened four ways, timed in alternating blocks of 5 runs so that all
 * four see the same box: one intra-op thread; two threads not spinning (the daemon's sessions);
 * two threads spinning within a run and stopped at its end (`session.force_spinning_stop`); and
 * onnxruntime's defaults (spinning, as bench/face.ts's floor runs). Same CPU graph as the daemon
 * (cpu-graph-rewrite.ts), random input. Prints wall and CPU p50 per variant.
 *
 *   node --import tsx bench/detector-spinning.ts [--blocks 40] [--model face_det_scrfd_500m_kps.onnx] [--shape 1,3,480,640]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { packageRoot } from '../src/core/package-root.js';
import { rewriteForCpu } from '../src/runtime/cpu-graph-rewrite.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const { values: opts } = parseArgs({
  options: { blocks: { type: 'string', default: '40' }, model: { type: 'string', default: 'face_det_scrfd_500m_kps.onnx' }, shape: { type: 'string', default: '1,3,480,640' } },
});
const BLOCK = 5;
const shape = opts.shape.split(',').map(Number);
const bytes = rewriteForCpu(readFileSync(join(packageRoot(), 'models', opts.model))).bytes;
const noSpin = { session: { intra_op: { allow_spinning: '0' } } };
const variants: [string, ort.InferenceSession.SessionOptions][] = [
  ['1 thread', { intraOpNumThreads: 1, extra: noSpin }],
  ['2 threads, not spinning (the daemon)', { intraOpNumThreads: 2, extra: noSpin }],
  ['2 threads, spinning within the run', { intraOpNumThreads: 2, extra: { session: { intra_op: { allow_spinning: '1' }, force_spinning_stop: '1' } } }],
  ["onnxruntime's defaults (bench/face.ts floor)", {}],
];
const sessions = await Promise.all(variants.map(([, o]) => ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'all', logSeverityLevel: 3, ...o })));
const input = new Float32Array(shape.reduce((a, b) => a * b)).map(() => Math.random() * 2 - 1);
const feed = { [sessions[0]!.inputNames[0]!]: new ort.Tensor('float32', input, shape) };
const wall: number[][] = variants.map(() => []);
const cpu: number[][] = variants.map(() => []);
for (const s of sessions) for (let i = 0; i < 3; i++) await s.run(feed);
for (let b = 0; b < Number(opts.blocks); b++) {
  for (const [v, s] of sessions.entries()) {
    for (let i = 0; i < BLOCK; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await s.run(feed);
      wall[v]!.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[v]!.push((c.user + c.system) / 1000);
    }
  }
}
console.log(machineLine());
console.log(`${opts.model} @ ${shape.join('x')}, ${Number(opts.blocks) * BLOCK} runs per variant in alternating blocks of ${BLOCK}\n`);
console.log('| session | wall p50 ms | wall p95 ms | CPU p50 ms |\n|---|---|---|---|');
for (const [v, [name]] of variants.entries()) {
  const w = summarize(wall[v]!);
  console.log(`| ${name} | ${fmt(w.p50)} | ${fmt(w.p95)} | ${fmt(summarize(cpu[v]!).p50)} |`);
}
