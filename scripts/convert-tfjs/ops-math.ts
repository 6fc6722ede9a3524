// Element-wise ops. TF and ONNX share numpy broadcasting, so these map one to one and keep the
// TF layout of their operands (a per-channel bias broadcasts over the last, NHWC channel axis).
import { dataInputs, requireFloat, requireNhwc, UnsupportedError, type ConvertContext } from './context.js';
import type { Shape } from './onnx-graph.js';
import type { OpHandler } from './ops-nn.js';
import type { TfjsNode } from './tfjs-model.js';

/** numpy broadcasting of two shapes; -1 (unknown) against 1 or -1 stays unknown. */
export function broadcast(node: TfjsNode, a: Shape, b: Shape): Shape {
  const rank = Math.max(a.length, b.length);
  const out: Shape = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x === 1) out.push(y);
    else if (y === 1 || x === y) out.push(x);
    else if (x === -1 || y === -1) out.push(Math.max(x, y));
    else throw new UnsupportedError(`${node.op} ${node.name}: shapes [${a}] and [${b}] do not broadcast`);
  }
  return out;
}

function binary(onnxOp: string): OpHandler {
  return (node, ctx) => {
    requireFloat(node);
    if (dataInputs(node).length !== 2) throw new UnsupportedError(`${node.op} ${node.name}: ${dataInputs(node).length} inputs`);
    const a = ctx.input(node, 0);
    const b = ctx.input(node, 1);
    ctx.g.node(onnxOp, [a, b], [ctx.output(node, broadcast(node, ctx.shape(a), ctx.shape(b)))]);
  };
}

function unary(onnxOp: string): OpHandler {
  return (node, ctx) => {
    requireFloat(node);
    const x = ctx.input(node, 0);
    ctx.g.node(onnxOp, [x], [ctx.output(node, ctx.shape(x))]);
  };
}

function biasAdd(node: TfjsNode, ctx: ConvertContext): void {
  requireNhwc(node);
  binary('Add')(node, ctx);
}

function relu6(node: TfjsNode, ctx: ConvertContext): void {
  requireFloat(node);
  const g = ctx.g;
  const x = ctx.input(node, 0);
  g.node('Clip', [x, g.float(`${node.name}/zero`, [0], []), g.float(`${node.name}/six`, [6], [])], [ctx.output(node, ctx.shape(x))]);
}

/** TF Softmax normalises over the last axis, as ONNX opset-13 Softmax(axis=-1) does. */
function softmax(node: TfjsNode, ctx: ConvertContext): void {
  requireFloat(node);
  const x = ctx.input(node, 0);
  ctx.g.node('Softmax', [x], [ctx.output(node, ctx.shape(x))], { axis: { int: -1 } });
}

/** Cast to float32 from int32 or bool (exact: the int32 values met are pixels and sizes, under 2^24). */
function cast(node: TfjsNode, ctx: ConvertContext): void {
  const src = node.attr?.SrcT?.type;
  const dst = node.attr?.DstT?.type;
  if (dst !== 'DT_FLOAT' || (src !== 'DT_INT32' && src !== 'DT_BOOL' && src !== 'DT_FLOAT')) throw new UnsupportedError(`${node.op} ${node.name}: ${src} -> ${dst}`);
  const x = ctx.input(node, 0);
  ctx.g.node('Cast', [x], [ctx.output(node, ctx.shape(x))], { to: { int: 1 } });
}

function identity(node: TfjsNode, ctx: ConvertContext): void {
  const x = ctx.input(node, 0);
  ctx.g.node('Identity', [x], [ctx.output(node, ctx.shape(x))]);
}

export const MATH_OPS: Record<string, OpHandler> = {
  Add: binary('Add'),
  AddV2: binary('Add'),
  BiasAdd: biasAdd,
  Sub: binary('Sub'),
  Mul: binary('Mul'),
  RealDiv: binary('Div'),
  Minimum: binary('Min'),
  Maximum: binary('Max'),
  Relu: unary('Relu'),
  Relu6: relu6,
  Sigmoid: unary('Sigmoid'),
  Tanh: unary('Tanh'),
  Softmax: softmax,
  Identity: identity,
  Cast: cast,
};
