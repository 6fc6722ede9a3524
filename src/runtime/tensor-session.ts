import * as ort from 'onnxruntime-node';
import type { WireTensor, WireType, WorkerModel } from './inference-worker.js';

/**
 * The part of ort.InferenceSession the modules use (names and run), backed by a session in
 * the inference worker: `run` takes and returns ort.Tensors like onnxruntime's own, but the
 * computation happens off the main thread. Feeds are copied, not transferred, so callers may
 * keep reusing their input buffers.
 */
export interface TensorSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, ort.Tensor>): Promise<Record<string, ort.Tensor>>;
}

export function tensorSession(model: WorkerModel): TensorSession {
  return {
    inputNames: model.inputNames,
    outputNames: model.outputNames,
    async run(feeds) {
      const wire: WireTensor[] = Object.entries(feeds).map(([name, t]) => ({
        name,
        type: t.type as WireType,
        data: (t.data as WireTensor['data']).slice(),
        dims: [...t.dims],
      }));
      const out = await model.run(wire);
      const result: Record<string, ort.Tensor> = {};
      for (const [name, o] of Object.entries(out)) result[name] = new ort.Tensor(o.type, o.data, o.dims);
      return result;
    },
  };
}
