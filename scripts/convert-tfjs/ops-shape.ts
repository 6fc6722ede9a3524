// Shape ops and reductions. Values keep their TF layout, so axes and shapes carry over as they
// are; only their encoding changes (ONNX wants int64 tensors or attributes).
import { attrBool, attrInt, requireFloat, UnsupportedError, type ConvertContext } from './context.js';
import type { Shape } from './onnx-graph.js';
import type { OpHandler } from './ops-nn.js';
import type { TfjsNode } from './tfjs-model.js';

/** Slice bounds meaning "to the end": ONNX clamps them to the dimension (int32 range keeps them exact as JS numbers). */
const END = 2147483647;
const BEFORE_START = -2147483648;

function intConst(node: TfjsNode, ctx: ConvertContext, i: number): number[] {
  const c = ctx.constInput(node, i);
  if (c.dtype !== 'int32') throw new UnsupportedError(`${node.op} ${node.name}: input ${i} must be an int32 constant`);
  return Array.from(c.data);
}

function normaliseAxis(node: TfjsNode, axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) throw new UnsupportedError(`${node.op} ${node.name}: axis ${axis} out of range for rank ${rank}`);
  return a;
}

function reshape(node: TfjsNode, ctx: ConvertContext): void {
  const x = ctx.input(node, 0);
  const target = intConst(node, ctx, 1);
  // ONNX reads 0 as "copy this dimension"; TF means an empty dimension. Refuse rather than differ.
  if (target.includes(0)) throw new UnsupportedError(`${node.op} ${node.name}: target shape [${target}] has a 0`);
  const inShape = ctx.shape(x);
  const known = inShape.every((d) => d >= 0) ? inShape.reduce((a, b) => a * b, 1) : -1;
  const fixed = target.filter((d) => d !== -1).reduce((a, b) => a * b, 1);
  const out = target.map((d) => (d === -1 && known >= 0 ? known / fixed : d));
  const g = ctx.g;
  g.node('Reshape', [x, g.int64(`${node.name}/shape`, target)], [ctx.output(node, out)]);
}

function expandDims(node: TfjsNode, ctx: ConvertContext): void {
  const x = ctx.input(node, 0);
  const axes = intConst(node, ctx, 1);
  if (axes.length !== 1) throw new UnsupportedError(`${node.op} ${node.name}: ${axes.length} axes`);
  const shape = ctx.shape(x);
  const axis = normaliseAxis(node, axes[0]!, shape.length + 1);
  const out = [...shape.slice(0, axis), 1, ...shape.slice(axis)];
  ctx.g.node('Unsqueeze', [x, ctx.g.int64(`${node.name}/axes`, [axis])], [ctx.output(node, out)]);
}

/** Length of python's x[begin:end:step] for a known dimension (begin/end already clamped by the caller's rules). */
function sliceLength(dim: number, begin: number, end: number, step: number): number {
  const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
  let b = begin < 0 ? begin + dim : begin;
  let e = end < 0 ? end + dim : end;
  if (step > 0) {
    b = clamp(b, 0, dim);
    e = clamp(e, 0, dim);
    return Math.max(0, Math.ceil((e - b) / step));
  }
  b = clamp(b, -1, dim - 1);
  e = clamp(e, -1, dim - 1);
  return Math.max(0, Math.ceil((b - e) / -step));
}

/**
 * StridedSlice -> Slice (+ Squeeze for shrink_axis_mask). Masks are read per TF's rules; the
 * ellipsis and new-axis masks, and a shrunk axis that is also begin-masked, are refused.
 */
function stridedSlice(node: TfjsNode, ctx: ConvertContext): void {
  requireFloat(node);
  const x = ctx.input(node, 0);
  const shape = ctx.shape(x);
  const begin = intConst(node, ctx, 1);
  const end = intConst(node, ctx, 2);
  const strides = intConst(node, ctx, 3);
  const beginMask = attrInt(node, 'begin_mask', 0);
  const endMask = attrInt(node, 'end_mask', 0);
  const shrinkMask = attrInt(node, 'shrink_axis_mask', 0);
  if (attrInt(node, 'ellipsis_mask', 0) !== 0 || attrInt(node, 'new_axis_mask', 0) !== 0) {
    throw new UnsupportedError(`${node.op} ${node.name}: ellipsis_mask/new_axis_mask are not supported`);
  }
  if (begin.length !== end.length || begin.length !== strides.length || begin.length > shape.length) {
    throw new UnsupportedError(`${node.op} ${node.name}: begin/end/strides of lengths ${begin.length}/${end.length}/${strides.length} for rank ${shape.length}`);
  }
  const starts: number[] = [];
  const ends: number[] = [];
  const steps: number[] = [];
  const squeeze: number[] = [];
  const out = [...shape];
  for (let i = 0; i < begin.length; i++) {
    const bit = 1 << i;
    const step = strides[i]!;
    if (step === 0) throw new UnsupportedError(`${node.op} ${node.name}: stride 0`);
    let b: number;
    let e: number;
    if (shrinkMask & bit) {
      if (beginMask & bit || step !== 1) throw new UnsupportedError(`${node.op} ${node.name}: shrunk axis ${i} with begin_mask or stride ${step}`);
      b = begin[i]!;
      e = b === -1 ? END : b + 1;
      squeeze.push(i);
    } else {
      b = beginMask & bit ? (step > 0 ? 0 : END) : begin[i]!;
      e = endMask & bit ? (step > 0 ? END : BEFORE_START) : end[i]!;
    }
    starts.push(b);
    ends.push(e);
    steps.push(step);
    const dim = shape[i]!;
    if (dim >= 0) out[i] = sliceLength(dim, b, e, step);
  }
  const g = ctx.g;
  const axes = starts.map((_, i) => i);
  const finalShape = out.filter((_, i) => !squeeze.includes(i));
  const sliceInputs = [x, g.int64(`${node.name}/starts`, starts), g.int64(`${node.name}/ends`, ends), g.int64(`${node.name}/axes`, axes), g.int64(`${node.name}/steps`, steps)];
  if (squeeze.length === 0) {
    g.node('Slice', sliceInputs, [ctx.output(node, finalShape)]);
    return;
  }
  const sliced = g.fresh(`${node.name}/slice`);
  g.node('Slice', sliceInputs, [sliced]);
  g.node('Squeeze', [sliced, g.int64(`${node.name}/squeeze_axes`, squeeze)], [ctx.output(node, finalShape)]);
}

/** Mean / Max / Sum over constant axes (an empty axis list reduces nothing in TF). */
function reduce(onnxOp: 'ReduceMean' | 'ReduceMax' | 'ReduceSum'): OpHandler {
  return (node, ctx) => {
    requireFloat(node);
    const x = ctx.input(node, 0);
    const shape = ctx.shape(x);
    const axes = [...new Set(intConst(node, ctx, 1).map((a) => normaliseAxis(node, a, shape.length)))].sort((a, b) => a - b);
    const keep = attrBool(node, 'keep_dims', false);
    const out = keep ? shape.map((d, i) => (axes.includes(i) ? 1 : d)) : shape.filter((_, i) => !axes.includes(i));
    const g = ctx.g;
    if (axes.length === 0) {
      g.node('Identity', [x], [ctx.output(node, out)]);
    } else if (onnxOp === 'ReduceSum') {
      // Opset 13 moved ReduceSum's axes to an input; ReduceMean/ReduceMax keep the attribute.
      g.node(onnxOp, [x, g.int64(`${node.name}/axes`, axes)], [ctx.output(node, out)], { keepdims: { int: keep ? 1 : 0 } });
    } else {
      g.node(onnxOp, [x], [ctx.output(node, out)], { axes: { ints: axes }, keepdims: { int: keep ? 1 : 0 } });
    }
  };
}

export const SHAPE_OPS: Record<string, OpHandler> = {
  Reshape: reshape,
  ExpandDims: expandDims,
  StridedSlice: stridedSlice,
  Mean: reduce('ReduceMean'),
  Max: reduce('ReduceMax'),
  Sum: reduce('ReduceSum'),
};

export type { Shape };
