/**
 * The PP-OCRv4 detector and recogniser as the daemon opens them on the CPU (affine-fold.ts over
 * cpu-graph-rewrite.ts) against the files as cpu-graph-rewrite.ts alone leaves them: CPU time of a
 * run on one intra-op thread, alternated in rounds on the same inputs (recogniser row crops 48 high
 * and 320, 760 and 1,104 wide; detector pages 736x512 and 544x736), and the largest difference
 * between their outputs (recogniser: softmax probabilities, and timesteps whose most probable class
 * differs; detector: the text-probability map).
 *
 *   node --import tsx bench/ocr-affine-fold.ts [--rounds 8]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { packageRoot } from '../src/core/package-root.js';
import { foldAffine } from '../src/runtime/affine-fold.js';
import { rewriteForCpu } from '../src/runtime/cpu-graph-rewrite.js';
import { machineLine } from './lib/stats.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '8' } } });
const ROUNDS = Number(values.rounds);
const options: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all', intraOpNumThreads: 1, logSeverityLevel: 3, extra: { session: { intra_op: { allow_spinning: '0' } } } };

/** Smooth pseudo-image input in about [-1.3, 1.3], the normalised range both models are fed. */
function input(h: number, w: number): ort.Tensor {
  const d = new Float32Array(3 * h * w);
  for (let i = 0; i < d.length; i++) d[i] = Math.sin(i * 0.37 + w) * 0.8 + Math.sin(i * 0.0013) * 0.5;
  return new ort.Tensor('float32', d, [1, 3, h, w]);
}

console.log(machineLine());
const models: [string, string, [number, number][]][] = [
  [
    'recogniser',
    'ocr_rec_ppocrv4.onnx',
    [
      [48, 320],
      [48, 760],
      [48, 1104],
    ],
  ],
  [
    'detector',
    'ocr_det_ppocrv4.onnx',
    [
      [512, 736],
      [736, 544],
    ],
  ],
];
for (const [label, file, shapes] of models) {
  const shipped = rewriteForCpu(readFileSync(join(packageRoot(), 'models', file))).bytes;
  const fold = foldAffine(shipped);
  const a = await ort.InferenceSession.create(shipped, options);
  const b = await ort.InferenceSession.create(fold.bytes, options);
  const inputs = shapes.map(([h, w]) => input(h, w));
  let maxDiff = 0;
  let argmaxDiffs = 0;
  for (const t of inputs) {
    const x = (await a.run({ [a.inputNames[0]!]: t }))[a.outputNames[0]!]!;
    const y = (await b.run({ [b.inputNames[0]!]: t }))[b.outputNames[0]!]!;
    const xd = x.data as Float32Array;
    const yd = y.data as Float32Array;
    for (let i = 0; i < xd.length; i++) maxDiff = Math.max(maxDiff, Math.abs(xd[i]! - yd[i]!));
    if (label === 'recogniser') {
      const classes = x.dims[2]!;
      for (let s = 0; s < x.dims[1]!; s++) {
        let ix = 0;
        let iy = 0;
        for (let c = 1; c < classes; c++) {
          if (xd[s * classes + c]! > xd[s * classes + ix]!) ix = c;
          if (yd[s * classes + c]! > yd[s * classes + iy]!) iy = c;
        }
        if (ix !== iy) argmaxDiffs++;
      }
    }
  }
  const cpu: Record<'shipped' | 'folded', number[]> = { shipped: [], folded: [] };
  for (let r = 0; r < ROUNDS + 1; r++) {
    for (const [k, s] of [
      ['shipped', a],
      ['folded', b],
    ] as const) {
      const c0 = process.cpuUsage();
      for (const t of inputs) await s.run({ [s.inputNames[0]!]: t });
      const c = process.cpuUsage(c0);
      if (r > 0) cpu[k].push((c.user + c.system) / 1000 / inputs.length);
    }
  }
  const median = (v: number[]) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)]!;
  const ms = { shipped: median(cpu.shipped), folded: median(cpu.folded) };
  console.log(
    `${label}: ${fold.hardswish} hardswish, ${fold.afterConv} affine after a Conv, ${fold.beforeConv} before one folded; CPU ms a run (median of ${ROUNDS} rounds) folded ${ms.folded.toFixed(1)} against ${ms.shipped.toFixed(1)} (${(ms.folded / ms.shipped).toFixed(2)}x); largest output difference ${maxDiff.toExponential(2)}${label === 'recogniser' ? `, timesteps whose best class differs ${argmaxDiffs}` : ''}`,
  );
  await a.release();
  await b.release();
}
