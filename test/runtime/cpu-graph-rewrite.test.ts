import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import { packageRoot } from '../../src/core/package-root.js';
import { rewriteForCpu } from '../../src/runtime/cpu-graph-rewrite.js';

const model = (file: string) => readFileSync(join(packageRoot(), 'models', file));

/** Deterministic pseudo-random input in [-scale, scale], so both signs reach every activation. */
function input(size: number, scale: number): Float32Array {
  let s = 12345;
  return Float32Array.from({ length: size }, () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return (s / 2 ** 31 - 0.5) * 2 * scale;
  });
}

async function outputs(bytes: Uint8Array, data: Float32Array, dims: number[]): Promise<Float32Array[]> {
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['cpu'], logSeverityLevel: 3 });
  try {
    const out = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', data, dims) });
    return session.outputNames.map((n) => out[n]!.data as Float32Array);
  } finally {
    await session.release();
  }
}

describe('graph rewrites for the CPU provider', () => {
  // The recognizer has one PRelu with slopes above 1 (the Relu/Min form) and 32 without (the Max
  // form), the MiniFASNets only the latter, HSE FaceRes 27 Relu-Min(6)-Max(0) chains. Inputs at
  // the scale the daemon feeds each model.
  const cases: [string, number[], number, { prelu: number; clip: number }][] = [
    ['face_rec_faceplugin_512d.onnx', [1, 3, 112, 112], 1, { prelu: 33, clip: 0 }],
    ['antispoof_minifasnet_v2_scale2.7_80x80.onnx', [1, 3, 80, 80], 255, { prelu: 33, clip: 0 }],
    ['antispoof_minifasnet_v1se_scale4.0_80x80.onnx', [1, 3, 80, 80], 255, { prelu: 33, clip: 0 }],
    ['face_attr_hse_faceres_224.onnx', [1, 224, 224, 3], 255, { prelu: 0, clip: 27 }],
  ];
  for (const [file, dims, scale, counts] of cases) {
    it(`${file}: ${counts.prelu} PRelu and ${counts.clip} ReLU6 chains rewritten, the outputs unchanged`, async () => {
      const original = model(file);
      const { bytes, prelu, clip } = rewriteForCpu(original);
      assert.deepEqual({ prelu, clip }, counts);
      const data = input(
        dims.reduce((a, b) => a * b, 1),
        scale,
      );
      const [before, after] = await Promise.all([outputs(original, data, dims), outputs(bytes, data, dims)]);
      before.forEach((o, k) => assert.deepEqual(Array.from(after[k]!), Array.from(o), `output ${k}`));
    });
  }

  it('leaves models without those patterns (float16 PRelu included), and bytes that are no model, as they are', () => {
    for (const file of ['face_det_scrfd_500m_kps.onnx', 'face_landmarks_mediapipe_v2_478_fp16.onnx']) {
      const original = model(file);
      const { bytes, prelu, clip } = rewriteForCpu(original);
      assert.deepEqual({ prelu, clip }, { prelu: 0, clip: 0 }, file);
      assert.equal(bytes, original, `${file}: the same bytes`);
    }
    const junk = new Uint8Array([1, 2, 3, 255, 0, 7]);
    assert.equal(rewriteForCpu(junk).bytes, junk);
  });
});
