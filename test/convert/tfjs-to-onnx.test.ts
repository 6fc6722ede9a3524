import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import ort from 'onnxruntime-node';
import * as tf from '@tensorflow/tfjs-core';
import { UnsupportedError } from '../../scripts/convert-tfjs/context.js';
import { convertTfjsModel, SUPPORTED_OPS } from '../../scripts/convert-tfjs/convert.js';
import { decodeModel } from '../../scripts/convert-tfjs/onnx-graph.js';
import { decodeWeights, type TfjsModel } from '../../scripts/convert-tfjs/tfjs-model.js';
import { compareOutputs, tfjsGraphModel } from './tfjs-reference.js';
import { attr, SyntheticGraph, values } from './synthetic-graph.js';

const { s, i, f, b, ints, strs, float } = attr;

function toModel(built: ReturnType<SyntheticGraph['build']>): TfjsModel {
  return {
    json: built.json,
    weights: decodeWeights(
      built.json.weightsManifest.flatMap((g) => g.weights),
      built.weights,
    ),
  };
}

/** Converts, runs TFJS and onnxruntime on the same random input, and returns the worst difference per output. */
async function agree(g: SyntheticGraph, outputs: string[], input: { name: string; shape: number[] }, tolerance = 1e-5) {
  const built = g.build(outputs);
  const converted = convertTfjsModel(toModel(built), { source: 'synthetic' });
  const session = await ort.InferenceSession.create(converted.bytes);
  const reference = await tfjsGraphModel(built.json, built.weights);
  const size = input.shape.reduce((a, c) => a * c, 1);
  const res = await compareOutputs(reference, session, { [input.name]: { data: new Float32Array(values(size, 7, -2, 2)), shape: input.shape } });
  for (const o of outputs) {
    assert.ok(res[o], `output ${o} missing`);
    assert.ok(res[o].maxAbsDiff <= tolerance, `${o}: max |TFJS - ONNX| = ${res[o].maxAbsDiff}`);
    // An output that is constant would agree trivially; these graphs are built to vary.
    assert.ok(new Set(res[o].ref).size > 1, `${o} is constant`);
  }
  await session.release();
  return { converted, res };
}

describe('TFJS -> ONNX converter against TFJS (CPU backend)', () => {
  it('convolutions, pools and dense layers keep NHWC semantics (odd sizes, SAME/VALID, strides, dilation, fused epilogues)', async () => {
    const g = new SyntheticGraph();
    const x = g.placeholder('x', [-1, 11, 9, 3]);
    const nhwc = { data_format: s('NHWC'), T: float() };
    // 3x2 kernel, stride 2 on an odd 11x9 input: TF's SAME puts the odd padding pixel after.
    const c1 = g.op('Conv2D', 'c1', [x, g.constant('w1', [3, 2, 3, 4], values(72, 1))], { ...nhwc, strides: ints([1, 2, 2, 1]), padding: s('SAME'), dilations: ints([1, 1, 1, 1]) });
    const c2 = g.op('_FusedConv2D', 'c2', [c1, g.constant('w2', [2, 2, 4, 4], values(64, 2)), g.constant('b2', [4], values(4, 3))], {
      ...nhwc,
      strides: ints([1, 1, 1, 1]),
      padding: s('VALID'),
      dilations: ints([1, 1, 1, 1]),
      fused_ops: strs(['BiasAdd', 'Relu6']),
      num_args: i(1),
      epsilon: f(0),
    });
    const d1 = g.op('DepthwiseConv2dNative', 'd1', [c2, g.constant('dw1', [3, 3, 4, 2], values(72, 4))], { ...nhwc, strides: ints([1, 1, 1, 1]), padding: s('SAME'), dilations: ints([1, 2, 2, 1]) });
    const d2 = g.op('FusedDepthwiseConv2dNative', 'd2', [d1, g.constant('dw2', [3, 3, 8, 1], values(72, 5)), g.constant('db2', [8], values(8, 6)), g.constant('alpha', [8], values(8, 7, 0, 0.5))], {
      ...nhwc,
      strides: ints([1, 2, 2, 1]),
      padding: s('SAME'),
      dilations: ints([1, 1, 1, 1]),
      fused_ops: strs(['BiasAdd', 'Prelu']),
      num_args: i(2),
    });
    const c3 = g.op('_FusedConv2D', 'c3', [d1, g.constant('w3', [1, 1, 8, 8], values(64, 8)), g.constant('b3', [8], values(8, 9))], {
      ...nhwc,
      strides: ints([1, 2, 2, 1]),
      padding: s('SAME'),
      dilations: ints([1, 1, 1, 1]),
      fused_ops: strs(['BiasAdd', 'LeakyRelu']),
      num_args: i(1),
      leakyrelu_alpha: f(0.1),
    });
    const sum = g.op('AddV2', 'sum', [d2, c3], { T: float() });
    const mp = g.op('MaxPool', 'mp', [sum], { ...nhwc, ksize: ints([1, 3, 3, 1]), strides: ints([1, 2, 2, 1]), padding: s('SAME') });
    // Average pooling with SAME on a 3-wide map: TF divides by the valid pixels only.
    const ap = g.op('AvgPool', 'ap', [sum], { ...nhwc, ksize: ints([1, 2, 2, 1]), strides: ints([1, 2, 2, 1]), padding: s('SAME') });
    const bias = g.op('BiasAdd', 'bias', [ap, g.constant('bb', [8], values(8, 10))], nhwc);
    const mean = g.op('Mean', 'mean', [bias, g.constant('axes', [2], [1, 2], 'int32')], { T: float(), Tidx: { type: 'DT_INT32' }, keep_dims: b(false) });
    const fc = g.op('_FusedMatMul', 'fc', [mean, g.constant('wfc', [5, 8], values(40, 11)), g.constant('bfc', [5], values(5, 12))], {
      T: float(),
      transpose_a: b(false),
      transpose_b: b(true),
      fused_ops: strs(['BiasAdd', 'Elu']),
      num_args: i(1),
      epsilon: f(0),
    });
    const soft = g.op('Softmax', 'soft', [fc], { T: float() });
    const mx = g.op('Max', 'mx', [mp, g.constant('mx_axes', [1], [3], 'int32')], { T: float(), Tidx: { type: 'DT_INT32' }, keep_dims: b(true) });
    const { converted } = await agree(g, [soft, mx, c1], { name: 'x', shape: [2, 11, 9, 3] });
    assert.deepEqual(
      converted.outputs.map((o) => o.shape),
      [
        [-1, 5],
        [-1, 2, 1, 1],
        [-1, 6, 5, 4],
      ],
    );
  });

  it('element-wise ops, StridedSlice masks, Reshape, ExpandDims and reductions', async () => {
    const g = new SyntheticGraph();
    const x = g.placeholder('x', [-1, 4, 6]);
    const T = { T: float() };
    const slice = (name: string, input: string, begin: number[], end: number[], strides: number[], masks: { begin?: number; end?: number; shrink?: number }) =>
      g.op(
        'StridedSlice',
        name,
        [input, g.constant(`${name}/b`, [begin.length], begin, 'int32'), g.constant(`${name}/e`, [end.length], end, 'int32'), g.constant(`${name}/s`, [strides.length], strides, 'int32')],
        {
          ...T,
          Index: { type: 'DT_INT32' },
          begin_mask: i(masks.begin ?? 0),
          end_mask: i(masks.end ?? 0),
          shrink_axis_mask: i(masks.shrink ?? 0),
          ellipsis_mask: i(0),
          new_axis_mask: i(0),
        },
      );
    const row2 = slice('row2', x, [0, 2], [0, 3], [1, 1], { begin: 1, end: 1, shrink: 2 }); // x[:, 2]
    const last = slice('last', x, [0, -1], [0, 0], [1, 1], { begin: 1, end: 1, shrink: 2 }); // x[:, -1]
    const rev = slice('rev', x, [0, 0, 0], [0, 0, 0], [1, 1, -1], { begin: 7, end: 7 }); // x[:, :, ::-1]
    const odd = slice('odd', x, [0, 1, 1], [0, 4, -1], [1, 2, 2], { begin: 1, end: 1 }); // x[:, 1:4:2, 1:-1:2]
    const a = g.op('Mul', 'a', [row2, last], T);
    const bsub = g.op('Sub', 'bsub', [a, g.constant('k', [], [0.25])], T);
    const cdiv = g.op('RealDiv', 'cdiv', [bsub, g.constant('k2', [6], values(6, 3, 1, 2))], T);
    const dmin = g.op('Minimum', 'dmin', [g.op('Maximum', 'dmax', [cdiv, g.constant('lo', [], [-0.5])], T), g.constant('hi', [], [0.6])], T);
    const e = g.op('Tanh', 'e', [g.op('Add', 'e0', [dmin, g.op('Sigmoid', 'sig', [row2], T)], T)], T);
    const flat = g.op('Reshape', 'flat', [rev, g.constant('shape', [2], [-1, 24], 'int32')], { ...T, Tshape: { type: 'DT_INT32' } });
    const mm = g.op('MatMul', 'mm', [flat, g.constant('wmm', [24, 3], values(72, 4))], { ...T, transpose_a: b(false), transpose_b: b(false) });
    const r6 = g.op('Relu6', 'r6', [g.op('Mul', 'scale', [mm, g.constant('eight', [], [8])], T)], T);
    const relu = g.op('Relu', 'relu', [g.op('Identity', 'id', [e], T)], T);
    const ex = g.op('ExpandDims', 'ex', [odd, g.constant('dim', [], [-1], 'int32')], { ...T, Tdim: { type: 'DT_INT32' } });
    const total = g.op('Sum', 'total', [ex, g.constant('sum_axes', [2], [-2, 1], 'int32')], { ...T, Tidx: { type: 'DT_INT32' }, keep_dims: b(true) });
    const { converted } = await agree(g, [e, r6, relu, total], { name: 'x', shape: [3, 4, 6] });
    assert.deepEqual(
      converted.outputs.map((o) => o.shape),
      [
        [-1, 6],
        [-1, 3],
        [-1, 6],
        [-1, 1, 1, 1],
      ],
    );
  });

  it('decodes float16- and uint8-quantised weights exactly as TFJS does', async () => {
    const g = new SyntheticGraph();
    const x = g.placeholder('x', [-1, 5, 5, 2]);
    const c = g.op('_FusedConv2D', 'c', [x, g.constant('w', [3, 3, 2, 3], values(54, 21), 'float32', 'float16'), g.constant('b', [3], values(3, 22), 'float32', 'uint8')], {
      data_format: s('NHWC'),
      T: float(),
      strides: ints([1, 1, 1, 1]),
      padding: s('SAME'),
      dilations: ints([1, 1, 1, 1]),
      fused_ops: strs(['BiasAdd', 'Relu']),
      num_args: i(1),
    });
    const out = g.op('Mul', 'out', [c, g.constant('m', [3], values(3, 23), 'float32', 'float16')], { T: float() });
    await agree(g, [out], { name: 'x', shape: [1, 5, 5, 2] });
  });

  it('fails loudly, naming every unsupported op and node', () => {
    const g = new SyntheticGraph();
    const x = g.placeholder('x', [-1, 8]);
    const c = g.op('Cumsum', 'running', [x, g.constant('axis', [], [1], 'int32')], { T: float() });
    g.op('Erf', 'erf_a', [c], { T: float() });
    g.op('Erf', 'erf_b', [x], { T: float() });
    const built = g.build(['erf_a', 'erf_b']);
    assert.throws(
      () => convertTfjsModel(toModel(built), { source: 'synthetic' }),
      (err: Error) => err instanceof UnsupportedError && /Cumsum \(1: running\)/.test(err.message) && /Erf \(2: erf_a, erf_b\)/.test(err.message),
    );
    assert.ok(!SUPPORTED_OPS.includes('Cumsum'));
  });

  it('refuses what it cannot express exactly (NCHW data, unknown fused epilogues, ellipsis masks)', () => {
    const nchw = new SyntheticGraph();
    nchw.op('Conv2D', 'c', [nchw.placeholder('x', [1, 3, 8, 8]), nchw.constant('w', [1, 1, 3, 2], values(6, 1))], { data_format: s('NCHW'), strides: ints([1, 1, 1, 1]), padding: s('VALID') });
    assert.throws(() => convertTfjsModel(toModel(nchw.build(['c'])), { source: 't' }), /data_format NCHW/);

    const bn = new SyntheticGraph();
    bn.op('_FusedConv2D', 'c', [bn.placeholder('x', [1, 8, 8, 3]), bn.constant('w', [1, 1, 3, 2], values(6, 1)), bn.constant('b', [2], [0, 0])], {
      data_format: s('NHWC'),
      strides: ints([1, 1, 1, 1]),
      padding: s('VALID'),
      fused_ops: strs(['FusedBatchNorm', 'Relu']),
      num_args: i(4),
    });
    assert.throws(() => convertTfjsModel(toModel(bn.build(['c'])), { source: 't' }), /fused_ops \[FusedBatchNorm,Relu\]/);

    const el = new SyntheticGraph();
    const xin = el.placeholder('x', [1, 4, 4]);
    el.op('StridedSlice', 'sl', [xin, el.constant('b', [2], [0, 0], 'int32'), el.constant('e', [2], [1, 1], 'int32'), el.constant('s', [2], [1, 1], 'int32')], {
      T: float(),
      ellipsis_mask: i(1),
      new_axis_mask: i(0),
      begin_mask: i(0),
      end_mask: i(0),
      shrink_axis_mask: i(0),
    });
    assert.throws(() => convertTfjsModel(toModel(el.build(['sl'])), { source: 't' }), /ellipsis_mask/);
  });

  it('int32 pixels cast to float, Keras UpSampling2D (size = Shape(x)[1:3] * k) and constant-size ResizeBilinear, outputs picked by name', async () => {
    const g = new SyntheticGraph();
    const T = { T: float() };
    g.op('Placeholder', 'px', [], { dtype: { type: 'DT_INT32' }, shape: { shape: { dim: [1, -1, -1, 2].map((d) => ({ size: String(d) })) } } });
    const xf = g.op('Cast', 'xf', ['px'], { SrcT: { type: 'DT_INT32' }, DstT: { type: 'DT_FLOAT' } });
    const x = g.op('Mul', 'x', [xf, g.constant('k', [2], [0.01, -0.02])], T);
    const shape = g.op('Shape', 'shape', [x], { T: float(), out_type: { type: 'DT_INT32' } });
    const hw = g.op('StridedSlice', 'hw', [shape, g.constant('hw/b', [1], [1], 'int32'), g.constant('hw/e', [1], [3], 'int32'), g.constant('hw/s', [1], [1], 'int32')], {
      T: { type: 'DT_INT32' },
      Index: { type: 'DT_INT32' },
      begin_mask: i(0),
      end_mask: i(0),
      shrink_axis_mask: i(0),
      ellipsis_mask: i(0),
      new_axis_mask: i(0),
    });
    const size = g.op('Mul', 'size', [hw, g.constant('factor', [2], [2, 3], 'int32')], { T: { type: 'DT_INT32' } });
    const up = g.op('ResizeBilinear', 'up', [x, size], { ...T, align_corners: b(false), half_pixel_centers: b(true) });
    const fixed = g.op('ResizeBilinear', 'fixed', [x, g.constant('fixed/size', [2], [7, 4], 'int32')], { ...T, align_corners: b(true), half_pixel_centers: b(false) });
    // Past the picked outputs, an op the converter does not carry: the signature would need it.
    g.op('Erf', 'beyond', [up], T);
    const built = g.build(['beyond']);
    const model = toModel(built);
    assert.throws(() => convertTfjsModel(model, { source: 't' }), /Erf/);
    const converted = convertTfjsModel(model, { source: 't', outputs: [up, fixed] });
    const session = await ort.InferenceSession.create(converted.bytes);
    const reference = await tfjsGraphModel(built.json, built.weights);
    for (const [h, w] of [
      [5, 3],
      [2, 6],
    ] as const) {
      const pixels = new Int32Array(values(h * w * 2, h * 10 + w, 0, 255).map(Math.floor));
      const got = await session.run({ px: new ort.Tensor('int32', pixels, [1, h, w, 2]) });
      const ref = reference.execute({ px: tf.tensor(pixels, [1, h, w, 2], 'int32') }, [up, fixed]) as tf.Tensor[];
      assert.deepEqual(got[up]!.dims, [1, 2 * h, 3 * w, 2]);
      assert.deepEqual(got[fixed]!.dims, [1, 7, 4, 2]);
      for (const [k, name] of [up, fixed].entries()) {
        const r = ref[k]!.dataSync();
        const o = got[name]!.data as Float32Array;
        assert.ok(new Set(r).size > 1, `${name} is constant`);
        assert.ok(Math.max(...Array.from(r, (v, j) => Math.abs(v - o[j]!))) <= 1e-5, `${name} differs from TFJS at ${h}x${w}`);
      }
      tf.dispose(ref);
    }
    await session.release();
  });

  it('writes the same bytes every time, with a symbolic batch and TF node names as output names', () => {
    const make = () => {
      const g = new SyntheticGraph();
      g.op('Relu', 'out', [g.op('AddV2', 'add', [g.placeholder('x', [-1, 4]), g.constant('c', [4], [1, 2, 3, 4])], { T: attr.float() })], { T: attr.float() });
      return convertTfjsModel(toModel(g.build(['out'])), { source: 'synthetic' }).bytes;
    };
    const first = make();
    assert.deepEqual(make(), first);
    const model = decodeModel(first);
    assert.equal(model.graph?.input?.[0]?.type?.tensorType?.shape?.dim?.[0]?.dimParam, 'batch');
    assert.deepEqual(
      model.graph?.output?.map((o) => o.name),
      ['out'],
    );
    assert.equal(Number(model.opsetImport?.[0]?.version), 13);
  });
});
