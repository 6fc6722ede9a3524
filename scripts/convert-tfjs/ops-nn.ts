// Convolutions, pooling and dense layers. TF keeps images NHWC with HWIO filters; ONNX wants
// NCHW with OIHW filters. Each op is wrapped in NHWC->NCHW / NCHW->NHWC transposes (so every
// value between ops keeps exactly its TF shape) and filters are re-laid out at conversion time;
// a transpose pair between two image ops cancels (see ConvertContext.toNchw).
import { attrFloat, attrInts, attrString, attrStrings, dataInputs, requireFloat, requireNhwc, UnsupportedError, type ConvertContext } from './context.js';
import type { AttrValue, Shape } from './onnx-graph.js';
import type { TfjsNode } from './tfjs-model.js';

export type OpHandler = (node: TfjsNode, ctx: ConvertContext) => void;

interface Window {
  attrs: Record<string, AttrValue>;
  outHW: [number, number];
}

/** Output size and ONNX pads of a TF window op (SAME pads as TF does: the odd pixel goes after). */
function window(node: TfjsNode, inHW: [number, number], kernel: [number, number], strides: [number, number], dilations: [number, number]): Window {
  const padding = attrString(node, 'padding');
  const attrs: Record<string, AttrValue> = { kernel_shape: { ints: kernel }, strides: { ints: strides } };
  const outHW: [number, number] = [-1, -1];
  const before = [0, 0];
  const after = [0, 0];
  for (let d = 0; d < 2; d++) {
    const size = inHW[d]!;
    const span = (kernel[d]! - 1) * dilations[d]! + 1;
    if (padding === 'SAME') {
      if (size < 0) continue;
      const out = Math.ceil(size / strides[d]!);
      const total = Math.max((out - 1) * strides[d]! + span - size, 0);
      before[d] = Math.floor(total / 2);
      after[d] = total - before[d]!;
      outHW[d] = out;
    } else if (padding === 'VALID') {
      if (size >= 0) outHW[d] = Math.floor((size - span) / strides[d]!) + 1;
    } else if (padding === 'EXPLICIT') {
      const p = attrInts(node, 'explicit_paddings');
      before[d] = p[2 + 2 * d]!;
      after[d] = p[3 + 2 * d]!;
      if (size >= 0) outHW[d] = Math.floor((size + before[d]! + after[d]! - span) / strides[d]!) + 1;
    } else {
      throw new UnsupportedError(`${node.op} ${node.name}: padding ${padding}`);
    }
  }
  if (padding === 'SAME' && (inHW[0] < 0 || inHW[1] < 0)) attrs.auto_pad = { string: 'SAME_UPPER' };
  else attrs.pads = { ints: [before[0]!, before[1]!, after[0]!, after[1]!] };
  return { attrs, outHW };
}

function nhwcPair(node: TfjsNode, key: string, fallback: number[]): [number, number] {
  const v = attrInts(node, key, fallback);
  if (v.length !== 4 || v[0] !== 1 || v[3] !== 1) throw new UnsupportedError(`${node.op} ${node.name}: ${key}=[${v}] (batch/channel ${key} must be 1)`);
  return [v[1]!, v[2]!];
}

function rank4(node: TfjsNode, ctx: ConvertContext, value: string): Shape {
  const s = ctx.shape(value);
  if (s.length !== 4) throw new UnsupportedError(`${node.op} ${node.name}: input rank ${s.length} (expected NHWC rank 4)`);
  return s;
}

/**
 * The fused epilogue of _Fused* ops as tfjs-converter reads it: fused_ops = [BiasAdd, activation?];
 * returns the bias input index (or undefined) and the activation.
 */
function fusedOps(node: TfjsNode): { bias: boolean; activation: string | undefined } {
  const ops = attrStrings(node, 'fused_ops');
  if (ops[0] !== 'BiasAdd') throw new UnsupportedError(`${node.op} ${node.name}: fused_ops [${ops}] (only BiasAdd[, activation] is supported)`);
  if (ops.length > 2) throw new UnsupportedError(`${node.op} ${node.name}: fused_ops [${ops}]`);
  return { bias: true, activation: ops[1] };
}

/** Applies a fused activation to `value`; `channelsFirst` says where PReLU's per-channel alpha goes. */
function activate(node: TfjsNode, ctx: ConvertContext, value: string, activation: string, channelsFirst: boolean, target?: string): string {
  const g = ctx.g;
  const out = target ?? g.fresh(`${node.name}/${activation}`);
  switch (activation) {
    case 'Relu':
      g.node('Relu', [value], [out]);
      break;
    case 'Relu6':
      g.node('Clip', [value, g.float(`${node.name}/zero`, [0], []), g.float(`${node.name}/six`, [6], [])], [out]);
      break;
    case 'Elu':
      g.node('Elu', [value], [out], { alpha: { float: 1 } });
      break;
    case 'Sigmoid':
      g.node('Sigmoid', [value], [out]);
      break;
    case 'LeakyRelu':
      g.node('LeakyRelu', [value], [out], { alpha: { float: attrFloat(node, 'leakyrelu_alpha', 0.2) } });
      break;
    case 'Prelu': {
      const alpha = ctx.constInput(node, 3);
      if (alpha.dtype !== 'float32') throw new UnsupportedError(`${node.op} ${node.name}: PReLU alpha is ${alpha.dtype}`);
      const dims = channelsFirst && alpha.shape.length === 1 ? [alpha.shape[0]!, 1, 1] : alpha.shape;
      g.node('PRelu', [value, g.float(`${node.name}/alpha`, Array.from(alpha.data), dims)], [out]);
      break;
    }
    default:
      throw new UnsupportedError(`${node.op} ${node.name}: fused activation ${activation}`);
  }
  return out;
}

/** Conv2D / DepthwiseConv2dNative and their _Fused forms. */
function convolution(depthwise: boolean, fused: boolean): OpHandler {
  return (node, ctx) => {
    requireNhwc(node);
    requireFloat(node);
    const g = ctx.g;
    const x = ctx.input(node, 0);
    const [n, h, w, c] = rank4(node, ctx, x) as [number, number, number, number];
    const filter = ctx.constInput(node, 1);
    if (filter.dtype !== 'float32' || filter.shape.length !== 4) throw new UnsupportedError(`${node.op} ${node.name}: filter must be a float32 rank-4 constant`);
    const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
    if (c >= 0 && c !== cin) throw new UnsupportedError(`${node.op} ${node.name}: input has ${c} channels, filter expects ${cin}`);
    const strides = nhwcPair(node, 'strides', [1, 1, 1, 1]);
    const dilations = nhwcPair(node, 'dilations', [1, 1, 1, 1]);
    const win = window(node, [h, w], [kh, kw], strides, dilations);
    // TF filter [kh][kw][cin][cout] (depthwise: [kh][kw][cin][multiplier]) -> ONNX [O][I/group][kh][kw].
    const outChannels = depthwise ? cin * cout : cout;
    const inPerGroup = depthwise ? 1 : cin;
    const weight = new Float32Array(outChannels * inPerGroup * kh * kw);
    const f = filter.data;
    for (let y = 0; y < kh; y++)
      for (let xk = 0; xk < kw; xk++)
        for (let i = 0; i < cin; i++)
          for (let o = 0; o < cout; o++) {
            const src = ((y * kw + xk) * cin + i) * cout + o;
            const dst = depthwise ? ((i * cout + o) * kh + y) * kw + xk : ((o * cin + i) * kh + y) * kw + xk;
            weight[dst] = f[src]!;
          }
    const inputs = [ctx.toNchw(x), g.initializer(g.fresh(`${node.name}/weight_oihw`), 'float32', [outChannels, inPerGroup, kh, kw], weight)];
    let activation: string | undefined;
    if (fused) {
      const epilogue = fusedOps(node);
      inputs.push(ctx.input(node, 2));
      activation = epilogue.activation;
    } else if (dataInputs(node).length !== 2) {
      throw new UnsupportedError(`${node.op} ${node.name}: ${dataInputs(node).length} inputs`);
    }
    const conv = g.fresh(`${node.name}/nchw`);
    g.node('Conv', inputs, [conv], { ...win.attrs, dilations: { ints: dilations }, group: { int: depthwise ? cin : 1 } });
    ctx.fromNchw(node, activation ? activate(node, ctx, conv, activation, true) : conv, [n, win.outHW[0], win.outHW[1], outChannels]);
  };
}

function pool(onnxOp: 'MaxPool' | 'AveragePool'): OpHandler {
  return (node, ctx) => {
    requireNhwc(node);
    requireFloat(node);
    const x = ctx.input(node, 0);
    const [n, h, w, c] = rank4(node, ctx, x) as [number, number, number, number];
    const kernel = nhwcPair(node, 'ksize', [1, 1, 1, 1]);
    const strides = nhwcPair(node, 'strides', [1, 1, 1, 1]);
    const win = window(node, [h, w], kernel, strides, [1, 1]);
    const out = ctx.g.fresh(`${node.name}/nchw`);
    // TF averages over the valid pixels only: count_include_pad 0 (ONNX's default) is the same.
    ctx.g.node(onnxOp, [ctx.toNchw(x)], [out], win.attrs);
    ctx.fromNchw(node, out, [n, win.outHW[0], win.outHW[1], c]);
  };
}

/** MatMul / _FusedMatMul on rank-2 operands, as Gemm (transposes and bias folded in). */
function matmul(fused: boolean): OpHandler {
  return (node, ctx) => {
    requireFloat(node);
    const g = ctx.g;
    const a = ctx.input(node, 0);
    const b = ctx.input(node, 1);
    const sa = ctx.shape(a);
    const sb = ctx.shape(b);
    if (sa.length !== 2 || sb.length !== 2) throw new UnsupportedError(`${node.op} ${node.name}: operands of rank ${sa.length} and ${sb.length} (only rank 2 is supported)`);
    const transA = node.attr?.transpose_a?.b === true;
    const transB = node.attr?.transpose_b?.b === true;
    const m = transA ? sa[1]! : sa[0]!;
    const n = transB ? sb[0]! : sb[1]!;
    const inputs = [a, b];
    let activation: string | undefined;
    if (fused) {
      const epilogue = fusedOps(node);
      inputs.push(ctx.input(node, 2));
      activation = epilogue.activation;
    }
    const attrs: Record<string, AttrValue> = { transA: { int: transA ? 1 : 0 }, transB: { int: transB ? 1 : 0 } };
    if (!activation) {
      g.node('Gemm', inputs, [ctx.output(node, [m, n])], attrs);
      return;
    }
    const gemm = g.fresh(`${node.name}/gemm`);
    g.node('Gemm', inputs, [gemm], attrs);
    activate(node, ctx, gemm, activation, false, ctx.output(node, [m, n]));
  };
}

export const NN_OPS: Record<string, OpHandler> = {
  Conv2D: convolution(false, false),
  _FusedConv2D: convolution(false, true),
  DepthwiseConv2dNative: convolution(true, false),
  FusedDepthwiseConv2dNative: convolution(true, true),
  MaxPool: pool('MaxPool'),
  AvgPool: pool('AveragePool'),
  MatMul: matmul(false),
  _FusedMatMul: matmul(true),
};
