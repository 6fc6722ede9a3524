import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { packageRoot } from '../../src/core/package-root.js';
import { freeSpatialInputDims } from '../../src/runtime/free-input-dims.js';

const { onnx } = onnxProto;

/** A one-node graph: x [1, 3, 8, 8] reshaped to the constant `shape`. */
function reshapeModel(shape: number[]): Uint8Array {
  const dims = (ds: number[]) => ({ dim: ds.map((d) => ({ dimValue: d })) });
  const float = onnx.TensorProto.DataType.FLOAT;
  return onnx.ModelProto.encode({
    irVersion: 7,
    opsetImport: [{ domain: '', version: 11 }],
    graph: {
      name: 'g',
      node: [{ opType: 'Reshape', input: ['x', 'shape'], output: ['y'], name: 'r' }],
      initializer: [{ name: 'shape', dataType: onnx.TensorProto.DataType.INT64, dims: [shape.length], int64Data: shape }],
      input: [{ name: 'x', type: { tensorType: { elemType: float, shape: dims([1, 3, 8, 8]) } } }],
      output: [{ name: 'y', type: { tensorType: { elemType: float, shape: dims([1, 3, 64]) } } }],
    },
  }).finish();
}

describe('free spatial input dims', () => {
  // Guards person.detector_input: YOLOX as shipped declares 416x416; freed, it must run at the frame's aspect with the anchor count following the input.
  it('lets the shipped YOLOX run at 256x416 and 384x640, anchors following the size', async () => {
    const bytes = freeSpatialInputDims(readFileSync(join(packageRoot(), 'models', 'person_det_yolox_nano_416.onnx')));
    const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 });
    for (const [h, w] of [
      [256, 416],
      [384, 640],
    ] as const) {
      const out = await session.run({ images: new ort.Tensor('float32', new Float32Array(3 * h * w).fill(114), [1, 3, h, w]) });
      const anchors = [8, 16, 32].reduce((n, s) => n + (h / s) * (w / s), 0);
      assert.deepEqual(out.output!.dims, [1, anchors, 85]);
    }
    await session.release();
  });

  it('frees a reshape to [1, 3, -1] and refuses a graph that reshapes to a fixed shape', async () => {
    const ok = await ort.InferenceSession.create(freeSpatialInputDims(reshapeModel([1, 3, -1])));
    const out = await ok.run({ x: new ort.Tensor('float32', new Float32Array(3 * 4 * 16), [1, 3, 4, 16]) });
    assert.deepEqual(out.y!.dims, [1, 3, 64]);
    await ok.release();
    assert.throws(() => freeSpatialInputDims(reshapeModel([1, 3, 64])), /fixed shape \[1, 3, 64\]/);
  });
});
