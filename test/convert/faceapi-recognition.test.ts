// Proof of equality for the one model built from face-api's hand-written net rather than a TFJS
// graph: the ONNX file fetch-models provisions gives, on real face crops, the descriptors that
// face-api's own forward pass (written again here in tfjs-core ops, line for line after
// @vladmandic/face-api src/faceRecognitionNet) gives on the TFJS CPU backend.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import ort from 'onnxruntime-node';
import sharp from 'sharp';
import { modelManifest } from '../../src/runtime/model-manifest.js';
import { packageRoot } from '../../src/core/package-root.js';
import { faceapiWeightsFromNpm } from '../../scripts/npm-source.mjs';
import { testdata } from '../helpers/paths.js';

const TOLERANCE = 1e-4;
const FILES = ['faces/identities/bbt_penny/penny1.png', 'faces/identities/bbt_raj/raj1.png', 'faces/identities/bbt_penny/penny2.png'];

type T4 = tf.Tensor4D;
type Params = Record<string, tf.Tensor>;

// face-api convLayer / residual / residualDown, as in its source.
function convLayer(x: T4, p: Params, prefix: string, strides: number, relu: boolean, padding: 'same' | 'valid'): T4 {
  let out = tf.conv2d(x, p[`${prefix}/conv/filters`] as T4, strides, padding);
  out = tf.add(out, p[`${prefix}/conv/bias`]!);
  out = tf.add(tf.mul(out, p[`${prefix}/scale/weights`]!), p[`${prefix}/scale/biases`]!);
  return (relu ? tf.relu(out) : out) as T4;
}
function residual(x: T4, p: Params, prefix: string): T4 {
  const out = convLayer(convLayer(x, p, `${prefix}/conv1`, 1, true, 'same'), p, `${prefix}/conv2`, 1, false, 'same');
  return tf.relu(tf.add(out, x)) as T4;
}
function residualDown(x: T4, p: Params, prefix: string): T4 {
  let out = convLayer(convLayer(x, p, `${prefix}/conv1`, 2, true, 'valid'), p, `${prefix}/conv2`, 1, false, 'same');
  let pooled = tf.avgPool(x, 2, 2, 'valid');
  if (pooled.shape[1] !== out.shape[1]) {
    out = tf.concat([out, tf.zeros([out.shape[0], 1, out.shape[2], out.shape[3]])], 1);
    out = tf.concat([out, tf.zeros([out.shape[0], out.shape[1], 1, out.shape[3]])], 2);
  }
  if (pooled.shape[3] !== out.shape[3]) pooled = tf.concat([pooled, tf.zeros(pooled.shape)], 3);
  return tf.relu(tf.add(pooled, out)) as T4;
}
function faceapiForward(batch: T4, p: Params): tf.Tensor2D {
  const normalized = tf.div(tf.sub(batch, tf.tensor1d([122.782, 117.001, 104.298])), 255) as T4;
  let out = convLayer(normalized, p, 'conv32_down', 2, true, 'valid');
  out = tf.maxPool(out, 3, 2, 'valid');
  for (const l of ['conv32_1', 'conv32_2', 'conv32_3']) out = residual(out, p, l);
  out = residualDown(out, p, 'conv64_down');
  for (const l of ['conv64_1', 'conv64_2', 'conv64_3']) out = residual(out, p, l);
  out = residualDown(out, p, 'conv128_down');
  for (const l of ['conv128_1', 'conv128_2']) out = residual(out, p, l);
  out = residualDown(out, p, 'conv256_down');
  for (const l of ['conv256_1', 'conv256_2']) out = residual(out, p, l);
  out = residualDown(out, p, 'conv256_down_out');
  return tf.matMul(tf.mean(out, [1, 2]) as tf.Tensor2D, p['fc'] as tf.Tensor2D);
}

const entry = [...modelManifest().values()].find((m) => m.upstream_url.startsWith('convert-faceapi:npm:'));

describe('the face-api recognition net built as ONNX matches face-api on TFJS', () => {
  let manifestPath: string;
  before(() => {
    assert.ok(entry, 'models/manifest.json lists a convert-faceapi model');
    manifestPath = faceapiWeightsFromNpm(entry.upstream_url.slice('convert-faceapi:npm:'.length), join(packageRoot(), 'models', '.cache', 'npm'));
  });

  it('the provisioned file is the build the manifest pins', () => {
    const file = join(packageRoot(), 'models', entry!.file);
    assert.equal(createHash('sha256').update(readFileSync(file)).digest('hex'), entry!.sha256);
  });

  it(`descriptors agree within ${TOLERANCE} on real faces, and differ between people`, async () => {
    await tf.setBackend('cpu');
    // tfjs-core's own decoder (not the converter's) reads the quantised weights.
    const groups = JSON.parse(readFileSync(manifestPath, 'utf8')) as { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
    const bytes = Buffer.concat(groups.flatMap((g) => g.paths).map((p) => readFileSync(join(dirname(manifestPath), p))));
    const params = tf.io.decodeWeights(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      groups.flatMap((g) => g.weights),
    );
    const nhwc = new Float32Array(FILES.length * 150 * 150 * 3);
    for (const [k, f] of FILES.entries()) {
      const raw = await sharp(readFileSync(testdata(f)))
        .removeAlpha()
        .toColourspace('srgb')
        .resize(150, 150, { fit: 'fill' })
        .raw()
        .toBuffer();
      nhwc.set(Float32Array.from(raw), k * 150 * 150 * 3);
    }
    const ref = (await faceapiForward(tf.tensor4d(nhwc, [FILES.length, 150, 150, 3]), params).data()) as Float32Array;
    const nchw = new Float32Array(nhwc.length);
    const plane = 150 * 150;
    for (let n = 0; n < FILES.length; n++) for (let i = 0; i < plane; i++) for (let c = 0; c < 3; c++) nchw[n * 3 * plane + c * plane + i] = nhwc[(n * plane + i) * 3 + c]!;
    const session = await ort.InferenceSession.create(join(packageRoot(), 'models', entry!.file));
    try {
      const out = await session.run({ input: new ort.Tensor('float32', nchw, [FILES.length, 3, 150, 150]) });
      const got = out[session.outputNames[0]!]!.data as Float32Array;
      assert.equal(got.length, FILES.length * 128);
      let maxDiff = 0;
      for (let i = 0; i < got.length; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i]! - ref[i]!));
      console.log(`face_rec_dlib_resnet_128d: max |TFJS - ONNX| = ${maxDiff.toExponential(2)}`);
      assert.ok(maxDiff <= TOLERANCE, `max |TFJS - ONNX| = ${maxDiff}`);
      // Two people give different descriptors (the comparison is not between constants).
      const dist = (a: number, b: number) => Math.hypot(...Array.from({ length: 128 }, (_, i) => ref[a * 128 + i]! - ref[b * 128 + i]!));
      assert.ok(dist(0, 1) > 0.1, `penny vs raj distance ${dist(0, 1)}`);
    } finally {
      await session.release();
    }
  });
});
