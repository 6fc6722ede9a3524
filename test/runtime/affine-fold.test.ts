import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { packageRoot } from '../../src/core/package-root.js';
import { foldAffine } from '../../src/runtime/affine-fold.js';
import { rewriteForCpu } from '../../src/runtime/cpu-graph-rewrite.js';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const model = (file: string) => rewriteForCpu(readFileSync(join(packageRoot(), 'models', file))).bytes;

/** Deterministic pseudo-random input in [-scale, scale]. */
function input(size: number, scale: number): Float32Array {
  let s = 12345;
  return Float32Array.from({ length: size }, () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return (s / 2 ** 31 - 0.5) * 2 * scale;
  });
}

async function run(bytes: Uint8Array, data: Float32Array, dims: number[]): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['cpu'], logSeverityLevel: 3 });
  try {
    const out = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', data, dims) });
    return out[session.outputNames[0]!]!.data as Float32Array;
  } finally {
    await session.release();
  }
}

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);

function nodeCount(bytes: Uint8Array, op: string): number {
  return (onnx.ModelProto.decode(bytes).graph?.node ?? []).filter((n) => n.opType === op).length;
}

const scalar = (name: string, v: number) => ({ name, dataType: FLOAT, dims: [], floatData: [v] });
const tensor = (name: string, dims: number[], values: number[]) => ({ name, dataType: FLOAT, dims, floatData: values });

/**
 * A small graph in paddle2onnx's spelling: Conv, Mul(0.7) and Add(-0.2) by scalars (the scalar first
 * in the Mul, as paddle2onnx writes it), hardswish as Add(3), Clip(0, 6), Mul, Div(6), then Mul(1.3)
 * and Add(0.4) into a Conv with `pads` (1 for a 3x3 kernel, 0 for 1x1), the last Conv's bias given.
 */
function smallGraph(pad: number): Uint8Array {
  const k = pad === 0 ? 1 : 3;
  const w1 = input(4 * 2 * 3 * 3, 0.5);
  const w2 = input(3 * 4 * k * k, 0.5).map((v) => v * 0.9);
  const graph = {
    name: 'g',
    input: [{ name: 'x', type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimValue: 1 }, { dimValue: 2 }, { dimValue: 7 }, { dimValue: 7 }] } } } }],
    output: [{ name: 'y', type: { tensorType: { elemType: FLOAT } } }],
    initializer: [
      tensor('w1', [4, 2, 3, 3], [...w1]),
      tensor('w2', [3, 4, k, k], [...w2]),
      tensor('b2', [3], [0.1, -0.3, 0.05]),
      scalar('a1', 0.7),
      scalar('b1', -0.2),
      scalar('three', 3),
      scalar('zero', 0),
      scalar('six', 6),
      scalar('a2', 1.3),
      scalar('b2s', 0.4),
    ],
    node: [
      { opType: 'Conv', input: ['x', 'w1'], output: ['c1'], attribute: [{ name: 'pads', type: onnx.AttributeProto.AttributeType.INTS, ints: [1, 1, 1, 1] }] },
      { opType: 'Mul', input: ['a1', 'c1'], output: ['m1'] },
      { opType: 'Add', input: ['m1', 'b1'], output: ['h'] },
      { opType: 'Add', input: ['h', 'three'], output: ['h3'] },
      { opType: 'Clip', input: ['h3', 'zero', 'six'], output: ['hc'] },
      { opType: 'Mul', input: ['h', 'hc'], output: ['hm'] },
      { opType: 'Div', input: ['hm', 'six'], output: ['hs'] },
      { opType: 'Mul', input: ['a2', 'hs'], output: ['m2'] },
      { opType: 'Add', input: ['m2', 'b2s'], output: ['p'] },
      { opType: 'Conv', input: ['p', 'w2', 'b2'], output: ['y'], attribute: [{ name: 'pads', type: onnx.AttributeProto.AttributeType.INTS, ints: [pad, pad, pad, pad] }] },
    ],
  };
  return onnx.ModelProto.encode({ irVersion: 8, opsetImport: [{ domain: '', version: 13 }], graph }).finish();
}

describe('affine and hardswish folds (affine-fold.ts)', () => {
  for (const pad of [0, 1]) {
    it(`a small graph: the hardswish and the Conv's affine folded; the affine into the next Conv only when it reads no padding (pads ${pad})`, async () => {
      const original = smallGraph(pad);
      const folded = foldAffine(original);
      assert.deepEqual({ hardswish: folded.hardswish, afterConv: folded.afterConv, beforeConv: folded.beforeConv }, { hardswish: 1, afterConv: 1, beforeConv: pad === 0 ? 1 : 0 });
      assert.equal(nodeCount(folded.bytes, 'Clip') + nodeCount(folded.bytes, 'Div'), 0);
      assert.equal(nodeCount(folded.bytes, 'Add'), pad === 0 ? 0 : 1);
      const data = input(2 * 7 * 7, 4);
      const [before, after] = await Promise.all([run(original, data, [1, 2, 7, 7]), run(folded.bytes, data, [1, 2, 7, 7])]);
      assert.equal(after.length, before.length);
      // The same function, rounded differently; a wrong fold (a padded border, a sign) is off by 0.1 or more.
      assert.ok(maxDiff(before, after) < 1e-5, `max difference ${maxDiff(before, after)}`);
    });
  }

  // The PP-OCRv4 recogniser and detector as the daemon opens them, at real input sizes: a row
  // crop 48 high and a page at the MRZ pass's 736.
  const cases: [string, number[], { hardswish: number; afterConv: number; beforeConv: number }, number][] = [
    ['ocr_rec_ppocrv4.onnx', [1, 3, 48, 640], { hardswish: 28, afterConv: 28, beforeConv: 12 }, 1e-5],
    ['ocr_det_ppocrv4.onnx', [1, 3, 320, 736], { hardswish: 24, afterConv: 28, beforeConv: 10 }, 1e-5],
  ];
  for (const [file, dims, counts, tolerance] of cases) {
    it(`${file}: ${counts.hardswish} hardswish, ${counts.afterConv + counts.beforeConv} affine blocks folded, the outputs within ${tolerance}`, async () => {
      const original = model(file);
      const { bytes, hardswish, afterConv, beforeConv } = foldAffine(original);
      assert.deepEqual({ hardswish, afterConv, beforeConv }, counts);
      const data = input(
        dims.reduce((a, b) => a * b, 1),
        1,
      );
      const [before, after] = await Promise.all([run(original, data, dims), run(bytes, data, dims)]);
      assert.equal(after.length, before.length);
      assert.ok(maxDiff(before, after) < tolerance, `max difference ${maxDiff(before, after)}`);
    });
  }

  it('leaves a model without the patterns, and bytes that are no model, as they are', () => {
    const original = model('face_rec_mobilefacenet_128d.onnx');
    const f = foldAffine(original);
    assert.equal(f.bytes, original);
    assert.equal(f.hardswish + f.afterConv + f.beforeConv, 0);
    const junk = new Uint8Array([1, 2, 3, 255, 0, 7]);
    assert.equal(foldAffine(junk).bytes, junk);
  });
});
