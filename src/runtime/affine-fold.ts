// Folds the elementwise passes that Paddle's PP-LCNetV3 backbone (the PP-OCRv4 detector and
// recogniser) spells out around its convolutions into fewer operators, for onnxruntime's CPU
// provider. paddle2onnx writes each hardswish as Add(3), Clip(0, 6), Mul(x), Div(6) and each
// learnable affine block as a Mul and an Add by scalars, and onnxruntime fuses none of them (its
// Conv-Mul fusion does not take a scalar given as the Mul's first input): on the app's recogniser,
// one intra-op thread, they were 30% of a run (Mul 11%, Add 8%, Div 5%, Clip 5%, plus the layout
// reorders around them). Three rewrites:
// - hardswish x * Clip(x + 3, 0, 6) / 6 becomes x * HardSigmoid(x, 1/6, 1/2) (two passes, not four);
// - Conv then Mul(a) [then Add(b)] by scalars becomes one Conv with weights a*W and bias a*B + b;
// - Mul(a) then Add(b) by scalars feeding an unpadded Conv as its input becomes that Conv with
//   weights a*W and bias B + b * (sum of each output channel's weights).
// Unlike cpu-graph-rewrite.ts the values are not bit for bit those of the file: each is the same
// function rounded differently (on the recogniser's softmax outputs, at most 2e-6 apart over three
// real-sized inputs; on the detector's map 1.5e-7). So it is applied only to the models that ask for
// it (OpenTuning.foldAffine), after measuring their answers. The file on disk is not changed.
import onnxProto from 'onnx-proto';
import { decodeForRewrite, floatValues } from './cpu-graph-rewrite.js';

const { onnx } = onnxProto;
type INodeProto = onnxProto.onnx.INodeProto;
type ITensorProto = onnxProto.onnx.ITensorProto;
type IGraphProto = onnxProto.onnx.IGraphProto;

const FLOAT = onnx.TensorProto.DataType.FLOAT;

export interface AffineFold {
  /** The rewritten model, or the input bytes when nothing was rewritten. */
  bytes: Uint8Array;
  /** Hardswish chains made into x * HardSigmoid(x). */
  hardswish: number;
  /** Scalar Mul[/Add] after a Conv folded into it. */
  afterConv: number;
  /** Scalar Mul/Add before an unpadded Conv folded into it. */
  beforeConv: number;
}

function floatTensor(name: string, dims: ITensorProto['dims'], values: Float32Array): ITensorProto {
  return { name, dataType: FLOAT, dims: dims ?? [], rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) };
}

/** Lookups over one graph's current nodes: constants (Constant nodes or initializers) and sole consumers. */
class GraphIndex {
  private readonly producer = new Map<string, INodeProto>();
  private readonly consumers = new Map<string, INodeProto[]>();
  private readonly initializers: Map<string, ITensorProto>;
  private readonly outputs: Set<string>;

  constructor(graph: IGraphProto) {
    for (const n of graph.node ?? []) {
      for (const o of n.output ?? []) this.producer.set(o, n);
      for (const i of n.input ?? []) this.consumers.set(i, [...(this.consumers.get(i) ?? []), n]);
    }
    this.initializers = new Map((graph.initializer ?? []).map((t) => [t.name ?? '', t]));
    this.outputs = new Set((graph.output ?? []).map((o) => o.name ?? ''));
  }

  /** A float tensor that is a constant of the graph. */
  constant(name: string | undefined): ITensorProto | undefined {
    if (!name) return undefined;
    const p = this.producer.get(name);
    const t = p?.opType === 'Constant' ? p.attribute?.find((a) => a.name === 'value')?.t : this.initializers.get(name);
    return t && t.dataType === FLOAT ? t : undefined;
  }

  scalar(name: string | undefined): number | undefined {
    const t = this.constant(name);
    if (!t) return undefined;
    const v = floatValues(t);
    return v.length === 1 ? v[0] : undefined;
  }

  /** The one node reading `value`, when it is an `op` and `value` is not a graph output. */
  sole(value: string | undefined, op: string): INodeProto | undefined {
    if (value === undefined || this.outputs.has(value)) return undefined;
    const cs = this.consumers.get(value) ?? [];
    return cs.length === 1 && cs[0]!.opType === op ? cs[0] : undefined;
  }
}

/** The other input of a binary node than `value`, and whether `value` is one of its inputs at all. */
function otherInput(node: INodeProto, value: string): string | undefined {
  const [a, b] = node.input ?? [];
  return a === value ? b : b === value ? a : undefined;
}

/** A scalar operand of a binary node and its other input, whichever side the scalar is on. */
function scalarOperand(node: INodeProto, g: GraphIndex): { value: number; other: string } | undefined {
  const [a, b] = node.input ?? [];
  if (!a || !b || node.input!.length !== 2) return undefined;
  const sb = g.scalar(b);
  if (sb !== undefined) return { value: sb, other: a };
  const sa = g.scalar(a);
  return sa !== undefined ? { value: sa, other: b } : undefined;
}

/** Clip's bounds: attributes up to opset 10, inputs from 11. */
function clipBounds(clip: INodeProto, g: GraphIndex): [number | undefined, number | undefined] {
  const attr = (n: string) => clip.attribute?.find((a) => a.name === n)?.f ?? undefined;
  const input = (i: number) => (clip.input && clip.input.length > i && clip.input[i] ? g.scalar(clip.input[i]) : undefined);
  return [clip.input && clip.input.length > 1 ? input(1) : attr('min'), clip.input && clip.input.length > 2 ? input(2) : attr('max')];
}

/** The graph with nodes replaced or (null) dropped, and the new nodes' weights added (a later pass reads them). */
function replaceNodes(graph: IGraphProto, replaced: Map<INodeProto, INodeProto | null>, added: ITensorProto[] = []): void {
  graph.node = (graph.node ?? []).flatMap((n) => (replaced.has(n) ? (replaced.get(n) ? [replaced.get(n)!] : []) : [n]));
  if (added.length > 0) graph.initializer = [...(graph.initializer ?? []), ...added];
}

function rewriteHardswish(graph: IGraphProto): number {
  const g = new GraphIndex(graph);
  const replaced = new Map<INodeProto, INodeProto | null>();
  let count = 0;
  for (const add of graph.node ?? []) {
    if (add.opType !== 'Add') continue;
    const three = scalarOperand(add, g);
    if (three?.value !== 3) continue;
    const x = three.other;
    const clip = g.sole(add.output?.[0], 'Clip');
    if (!clip || clip.input?.[0] !== add.output?.[0]) continue;
    const [lo, hi] = clipBounds(clip, g);
    if (lo !== 0 || hi !== 6) continue;
    const mul = g.sole(clip.output?.[0], 'Mul');
    if (!mul || otherInput(mul, clip.output![0]!) !== x) continue;
    const div = g.sole(mul.output?.[0], 'Div');
    if (!div || div.input?.[0] !== mul.output?.[0] || g.scalar(div.input?.[1]) !== 6) continue;
    const p = `vigil_hardswish_${count++}`;
    replaced.set(add, {
      opType: 'HardSigmoid',
      name: `${p}_gate`,
      input: [x],
      output: [`${p}_gate`],
      attribute: [
        { name: 'alpha', type: onnx.AttributeProto.AttributeType.FLOAT, f: 1 / 6 },
        { name: 'beta', type: onnx.AttributeProto.AttributeType.FLOAT, f: 0.5 },
      ],
    });
    replaced.set(clip, null);
    replaced.set(mul, null);
    replaced.set(div, { opType: 'Mul', name: `${p}_mul`, input: [x, `${p}_gate`], output: [div.output![0]!] });
  }
  if (count > 0) replaceNodes(graph, replaced);
  return count;
}

function convWeights(conv: INodeProto, g: GraphIndex): { w: ITensorProto; wv: Float32Array; bias: Float32Array; cout: number } | undefined {
  const w = g.constant(conv.input?.[1]);
  const cout = Number(w?.dims?.[0] ?? 0);
  if (!w || cout <= 0) return undefined;
  const wv = floatValues(w);
  const b = conv.input?.[2] ? g.constant(conv.input[2]) : undefined;
  if (conv.input?.[2] && !b) return undefined;
  const bias = b ? floatValues(b) : new Float32Array(cout);
  return bias.length === cout && wv.length % cout === 0 ? { w, wv, bias, cout } : undefined;
}

function foldAfterConv(graph: IGraphProto): number {
  const g = new GraphIndex(graph);
  const replaced = new Map<INodeProto, INodeProto | null>();
  const added: ITensorProto[] = [];
  let count = 0;
  for (const conv of graph.node ?? []) {
    if (conv.opType !== 'Conv' || replaced.has(conv)) continue;
    const mul = g.sole(conv.output?.[0], 'Mul');
    const scale = mul && scalarOperand(mul, g);
    if (!mul || !scale || scale.other !== conv.output![0]) continue;
    const weights = convWeights(conv, g);
    if (!weights) continue;
    const add = g.sole(mul.output?.[0], 'Add');
    const shift = add && scalarOperand(add, g);
    const withAdd = add !== undefined && shift !== undefined && shift.other === mul.output![0];
    const a = scale.value;
    const b = withAdd ? shift.value : 0;
    const { w, wv, bias, cout } = weights;
    const w2 = wv.map((v) => v * a);
    const b2 = bias.map((v) => v * a + b);
    const p = `vigil_conv_affine_${count++}`;
    added.push(floatTensor(`${p}_w`, w.dims, w2), floatTensor(`${p}_b`, [cout], b2));
    replaced.set(conv, { ...conv, input: [conv.input![0]!, `${p}_w`, `${p}_b`], output: [(withAdd ? add : mul).output![0]!] });
    replaced.set(mul, null);
    if (withAdd) replaced.set(add, null);
  }
  if (count > 0) replaceNodes(graph, replaced, added);
  return count;
}

/** Whether a Conv reads no padding (a constant added to its input reaches every output alike). */
function unpadded(conv: INodeProto): boolean {
  const pads = conv.attribute?.find((a) => a.name === 'pads')?.ints ?? [];
  const auto = conv.attribute?.find((a) => a.name === 'auto_pad')?.s;
  const autoPad = auto ? new TextDecoder().decode(auto) : 'NOTSET';
  return pads.every((p) => Number(p) === 0) && (autoPad === 'NOTSET' || autoPad === 'VALID');
}

function foldBeforeConv(graph: IGraphProto): number {
  const g = new GraphIndex(graph);
  const replaced = new Map<INodeProto, INodeProto | null>();
  const added: ITensorProto[] = [];
  let count = 0;
  for (const mul of graph.node ?? []) {
    if (mul.opType !== 'Mul' || replaced.has(mul)) continue;
    const scale = scalarOperand(mul, g);
    if (!scale) continue;
    const add = g.sole(mul.output?.[0], 'Add');
    const shift = add && scalarOperand(add, g);
    if (!add || !shift || shift.other !== mul.output![0]) continue;
    const conv = g.sole(add.output?.[0], 'Conv');
    if (!conv || conv.input?.[0] !== add.output![0] || !unpadded(conv) || replaced.has(conv)) continue;
    const weights = convWeights(conv, g);
    if (!weights) continue;
    const { w, wv, bias, cout } = weights;
    const per = wv.length / cout;
    const w2 = wv.map((v) => v * scale.value);
    const b2 = new Float32Array(cout);
    for (let o = 0; o < cout; o++) {
      let sum = 0;
      for (let i = 0; i < per; i++) sum += wv[o * per + i]!;
      b2[o] = bias[o]! + shift.value * sum;
    }
    const p = `vigil_affine_conv_${count++}`;
    added.push(floatTensor(`${p}_w`, w.dims, w2), floatTensor(`${p}_b`, [cout], b2));
    replaced.set(conv, { ...conv, input: [scale.other, `${p}_w`, `${p}_b`] });
    replaced.set(mul, null);
    replaced.set(add, null);
  }
  if (count > 0) replaceNodes(graph, replaced, added);
  return count;
}

/** Applies the three folds to `model`; bytes protobufjs cannot read are returned as they are. */
export function foldAffine(model: Uint8Array): AffineFold {
  const unchanged = { bytes: model, hardswish: 0, afterConv: 0, beforeConv: 0 };
  const decoded = decodeForRewrite(model);
  if (!decoded) return unchanged;
  const { proto, graph } = decoded;
  const hardswish = rewriteHardswish(graph);
  const afterConv = foldAfterConv(graph);
  const beforeConv = foldBeforeConv(graph);
  if (hardswish + afterConv + beforeConv === 0) return unchanged;
  return { bytes: onnx.ModelProto.encode(proto).finish(), hardswish, afterConv, beforeConv };
}
