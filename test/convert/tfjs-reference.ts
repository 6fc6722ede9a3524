// The reference the converted models are held to: TensorFlow.js itself on its pure-JavaScript
// CPU backend (tfjs-core + tfjs-backend-cpu + tfjs-converter, the packages @tensorflow/tfjs
// bundles), and a comparison of its outputs with onnxruntime-node's.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import ort from 'onnxruntime-node';
import type { TfjsModelJson } from '../../scripts/convert-tfjs/tfjs-model.js';

let backendReady: Promise<boolean> | undefined;

/** A TFJS graph model from its JSON and concatenated weight bytes, on the CPU backend. */
export async function tfjsGraphModel(json: TfjsModelJson, weights: Uint8Array): Promise<GraphModel> {
  backendReady ??= tf.setBackend('cpu');
  await backendReady;
  const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer;
  return loadGraphModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest.flatMap((g) => g.weights) as tf.io.WeightsManifestEntry[],
      weightData,
      format: json.format,
      generatedBy: json.generatedBy,
      convertedBy: json.convertedBy,
    }),
  );
}

/** Runs both models on the same float32 inputs; returns each output's largest absolute difference. */
export async function compareOutputs(
  reference: GraphModel,
  session: ort.InferenceSession,
  feeds: Record<string, { data: Float32Array; shape: number[] }>,
): Promise<Record<string, { maxAbsDiff: number; ref: Float32Array; onnx: Float32Array; shape: number[] }>> {
  const names = session.outputNames;
  const tfFeeds: Record<string, tf.Tensor> = {};
  const ortFeeds: Record<string, ort.Tensor> = {};
  for (const [name, v] of Object.entries(feeds)) {
    tfFeeds[name] = tf.tensor(v.data, v.shape, 'float32');
    ortFeeds[name] = new ort.Tensor('float32', v.data, v.shape);
  }
  const refOut = reference.execute(tfFeeds, [...names]);
  const refs = Array.isArray(refOut) ? refOut : [refOut];
  const res = await session.run(ortFeeds);
  const out: Awaited<ReturnType<typeof compareOutputs>> = {};
  names.forEach((name, k) => {
    const r = refs[k]!;
    const ref = r.dataSync() as Float32Array;
    const onnx = res[name]!.data as Float32Array;
    if (ref.length !== onnx.length || r.shape.join() !== res[name]!.dims.join()) {
      throw new Error(`output ${name}: TFJS shape [${r.shape}] vs ONNX [${res[name]!.dims}]`);
    }
    let max = 0;
    for (let i = 0; i < ref.length; i++) max = Math.max(max, Math.abs(ref[i]! - onnx[i]!));
    if (ref.some((v) => Number.isNaN(v))) max = Number.POSITIVE_INFINITY;
    out[name] = { maxAbsDiff: max, ref, onnx, shape: r.shape };
  });
  tf.dispose([...Object.values(tfFeeds), ...refs]);
  return out;
}
