// TFJS graph model -> ONNX model. Walks the nodes the outputs depend on in dependency order,
// hands each to its op handler and refuses the whole model, listing every offending node, when
// any op is not supported. The output is deterministic: same input bytes, same ONNX bytes.
import { dataInputs, UnsupportedError, type ConvertContext } from './context.js';
import { OnnxGraph, type Shape } from './onnx-graph.js';
import { MATH_OPS } from './ops-math.js';
import { NN_OPS, type OpHandler } from './ops-nn.js';
import { foldUpsamplingSizes, RESIZE_OPS } from './ops-resize.js';
import { SHAPE_OPS } from './ops-shape.js';
import type { TfjsModel, TfjsNode, TfjsShape } from './tfjs-model.js';

/** Bump when the converter's output changes for the same input (the manifest's sha256 pins it). */
export const CONVERTER_VERSION = '1';

const HANDLERS: Record<string, OpHandler> = { ...NN_OPS, ...MATH_OPS, ...SHAPE_OPS, ...RESIZE_OPS };

/** TF ops the converter handles (Const and Placeholder besides the op handlers). */
export const SUPPORTED_OPS = ['Const', 'Placeholder', ...Object.keys(HANDLERS)].sort();

export interface ConvertedModel {
  bytes: Uint8Array;
  inputs: { name: string; shape: Shape }[];
  /** ONNX output names (the TF node names), in the model's signature order. */
  outputs: { name: string; shape: Shape }[];
  /** TF op -> count of converted nodes. */
  ops: Record<string, number>;
}

function nodeOf(ref: string): string {
  const colon = ref.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(ref.slice(colon + 1))) {
    if (ref.slice(colon + 1) !== '0') throw new UnsupportedError(`tensor ${ref}: only single-output ops are supported`);
    return ref.slice(0, colon);
  }
  return ref;
}

function tfShape(s: TfjsShape | undefined, where: string): Shape {
  if (!s || s.unknownRank) throw new UnsupportedError(`${where}: input of unknown rank`);
  return (s.dim ?? []).map((d) => Number(d.size ?? -1));
}

/** The graph's output nodes: the signature's, else every node nothing consumes. */
function outputNodes(model: TfjsModel, byName: Map<string, TfjsNode>): string[] {
  const sig = model.json.signature?.outputs;
  if (sig && Object.keys(sig).length > 0) return Object.values(sig).map((o) => nodeOf(o.name));
  const consumed = new Set(model.json.modelTopology.node.flatMap((n) => dataInputs(n).map(nodeOf)));
  return [...byName.values()].filter((n) => !consumed.has(n.name) && n.op !== 'Const').map((n) => n.name);
}

/** Nodes the outputs depend on, each after its inputs (depth-first, in input order). */
function schedule(outputs: string[], byName: Map<string, TfjsNode>): TfjsNode[] {
  const order: TfjsNode[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string): void => {
    const s = state.get(name);
    if (s === 'done') return;
    if (s === 'visiting') throw new UnsupportedError(`cycle through ${name} (control flow is not supported)`);
    const node = byName.get(name);
    if (!node) throw new UnsupportedError(`node ${name} is referenced but not defined`);
    state.set(name, 'visiting');
    for (const ref of dataInputs(node)) visit(nodeOf(ref));
    state.set(name, 'done');
    order.push(node);
  };
  for (const o of outputs) visit(o);
  return order;
}

/**
 * `outputs` picks the graph's outputs by TF node name instead of the signature's (to stop before
 * post-processing the converter does not carry, such as TopK and gathers, and do it in the caller).
 */
export function convertTfjsModel(model: TfjsModel, meta: { source: string; outputs?: string[] }): ConvertedModel {
  const byName = new Map(model.json.modelTopology.node.map((n) => [n.name, n]));
  foldUpsamplingSizes(model, byName);
  const outputs = meta.outputs ?? outputNodes(model, byName);
  const order = schedule(outputs, byName);

  const unsupported = order.filter((n) => n.op !== 'Const' && n.op !== 'Placeholder' && !HANDLERS[n.op]);
  if (unsupported.length > 0) {
    const byOp = new Map<string, string[]>();
    for (const n of unsupported) byOp.set(n.op, [...(byOp.get(n.op) ?? []), n.name]);
    const list = [...byOp].map(([op, names]) => `${op} (${names.length}: ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''})`);
    throw new UnsupportedError(`unsupported TFJS op(s): ${list.join('; ')}. Supported: ${SUPPORTED_OPS.join(', ')}`);
  }

  const g = new OnnxGraph();
  const shapes = new Map<string, Shape>();
  const nchwOf = new Map<string, string>();
  const inputs: ConvertedModel['inputs'] = [];
  const ops: Record<string, number> = {};

  const ctx: ConvertContext = {
    g,
    input(node, i) {
      const ref = dataInputs(node)[i];
      if (ref === undefined) throw new UnsupportedError(`${node.op} ${node.name}: missing input ${i}`);
      const name = nodeOf(ref);
      const src = byName.get(name)!;
      if (src.op === 'Const' && !g.hasInitializer(name)) {
        const w = model.weights.get(name);
        if (!w) throw new UnsupportedError(`Const ${name} has no weights in the shards`);
        g.claim(name);
        g.initializer(name, w.dtype, w.shape, w.data);
        shapes.set(name, w.shape);
      }
      return name;
    },
    constInput(node, i) {
      const ref = dataInputs(node)[i];
      const src = ref === undefined ? undefined : byName.get(nodeOf(ref));
      if (!src || src.op !== 'Const') throw new UnsupportedError(`${node.op} ${node.name}: input ${i} must be a constant`);
      const w = model.weights.get(src.name);
      if (!w) throw new UnsupportedError(`Const ${src.name} has no weights in the shards`);
      return w;
    },
    shape(value) {
      const s = shapes.get(value);
      if (!s) throw new Error(`internal: no shape for ${value}`);
      return s;
    },
    output(node, shape) {
      shapes.set(node.name, shape);
      return g.claim(node.name);
    },
    toNchw(value) {
      let nchw = nchwOf.get(value);
      if (!nchw) {
        nchw = g.fresh(`${value}/to_nchw`);
        g.node('Transpose', [value], [nchw], { perm: { ints: [0, 3, 1, 2] } });
        nchwOf.set(value, nchw);
      }
      return nchw;
    },
    fromNchw(node, nchw, nhwcShape) {
      const out = ctx.output(node, nhwcShape);
      g.node('Transpose', [nchw], [out], { perm: { ints: [0, 2, 3, 1] } });
      nchwOf.set(out, nchw);
      return out;
    },
  };

  for (const node of order) {
    if (node.op === 'Const') continue; // materialised on first use, in the form its consumer needs
    ops[node.op] = (ops[node.op] ?? 0) + 1;
    if (node.op === 'Placeholder') {
      const dtype = node.attr?.dtype?.type;
      if (dtype !== undefined && dtype !== 'DT_FLOAT' && dtype !== 'DT_INT32') throw new UnsupportedError(`Placeholder ${node.name}: dtype ${dtype}`);
      const shape = tfShape(node.attr?.shape?.shape, `Placeholder ${node.name}`);
      g.claim(node.name);
      g.input(node.name, dtype === 'DT_INT32' ? 'int32' : 'float32', shape);
      shapes.set(node.name, shape);
      inputs.push({ name: node.name, shape });
      continue;
    }
    HANDLERS[node.op]!(node, ctx);
  }

  const outs = outputs.map((name) => ({ name, shape: ctx.shape(name) }));
  for (const o of outs) g.output(o.name, 'float32', o.shape);
  g.prune();
  const bytes = g.encode({
    producerName: 'vigil-tfjs-to-onnx',
    producerVersion: CONVERTER_VERSION,
    docString: `Converted from the TensorFlow.js graph model ${meta.source}`,
    graphName: meta.source,
  });
  return { bytes, inputs, outputs: outs, ops };
}
