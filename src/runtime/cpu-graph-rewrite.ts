// Graph rewrites for onnxruntime's CPU provider: patterns whose CPU kernels cost far more than
// their arithmetic, replaced by operators that compute exactly the same values (up to the sign
// of a zero) and that onnxruntime vectorises or fuses. Profiled on this 2-core box (one intra-op
// thread, real face crops; docs/benchmarks.md, "Runtime"):
// - PRelu took 4.4 of the Faceplugin recognizer's 7.2 ms and 1.6 of each MiniFASNet's 2.9 ms,
//   more than all their convolutions together; its cost grows with the data (1.6 ms on the
//   0..255 crops MiniFASNet is fed, 0.45 ms on input in [-1, 1]).
// Each worker rewrites its own copy when it opens the session (about 50 ms for the largest
// face models, off the event loop).
// - HSE FaceRes, converted from Keras, spells ReLU6 as Relu, Min(6), Max(0): the Min and Max
//   run as separate passes (1.2 of its 7.1 ms) where a Clip fuses into the convolution.
// GPU providers get the file as it is.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
type INodeProto = onnxProto.onnx.INodeProto;
type ITensorProto = onnxProto.onnx.ITensorProto;
type IGraphProto = onnxProto.onnx.IGraphProto;

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const ZERO = 'vigil_cpu_rewrite_zero';

export interface CpuGraphRewrite {
  /** The rewritten model, or the input bytes when nothing was rewritten. */
  bytes: Uint8Array;
  /** PRelu nodes replaced. */
  prelu: number;
  /** Relu, Min(c)[, Max(0)] chains made into one Clip(0, c). */
  clip: number;
}

/** The float32 values of an initializer (raw little-endian bytes or float_data). */
export function floatValues(t: ITensorProto): Float32Array {
  if (t.rawData && t.rawData.length > 0) {
    // A copy: protobufjs hands out views into the whole file's buffer, at any alignment.
    const bytes = Uint8Array.from(t.rawData);
    return new Float32Array(bytes.buffer, 0, bytes.length / 4);
  }
  return Float32Array.from(t.floatData ?? []);
}

/**
 * `model` decoded for a graph rewrite (this file's and affine-fold.ts's), or undefined where it is
 * not one to rewrite: bytes protobufjs cannot read (onnxruntime says what is wrong with them), or
 * IR version 3, which wants every initializer listed as a graph input too (none of ours is that old).
 */
export function decodeForRewrite(model: Uint8Array): { proto: onnxProto.onnx.ModelProto; graph: IGraphProto & { node: INodeProto[] } } | undefined {
  let proto: onnxProto.onnx.ModelProto;
  try {
    proto = onnx.ModelProto.decode(model);
  } catch {
    return undefined;
  }
  const graph = proto.graph;
  if (!graph?.node || Number(proto.irVersion ?? 0) < 4) return undefined;
  return { proto, graph: graph as IGraphProto & { node: INodeProto[] } };
}

/** Rewrites `model` for the CPU provider; bytes protobufjs cannot read are returned as they are. */
export function rewriteForCpu(model: Uint8Array): CpuGraphRewrite {
  const unchanged = { bytes: model, prelu: 0, clip: 0 };
  const decoded = decodeForRewrite(model);
  if (!decoded) return unchanged;
  const { proto, graph } = decoded;
  const opset = Number(proto.opsetImport?.find((o) => !o.domain || o.domain === 'ai.onnx')?.version ?? 0);
  const initializers = new Map((graph.initializer ?? []).map((t) => [t.name ?? '', t]));
  const scalar = (name: string | undefined): number | undefined => {
    const t = name === undefined ? undefined : initializers.get(name);
    if (!t || t.dataType !== FLOAT) return undefined;
    const v = floatValues(t);
    return v.length === 1 ? v[0] : undefined;
  };
  const prelu = rewritePRelu(graph, initializers);
  // Clip takes its bounds as inputs from opset 11.
  const clip = opset >= 11 ? rewriteReluClip(graph, scalar) : 0;
  if (prelu.count + clip === 0) return unchanged;
  if (prelu.needsZero || clip > 0) graph.initializer = [...(graph.initializer ?? []), { name: ZERO, dataType: FLOAT, dims: [], floatData: [0] }];
  return { bytes: onnx.ModelProto.encode(proto).finish(), prelu: prelu.count, clip };
}

/**
 * Each float32 PRelu whose slope is an initializer: Max(x, x * slope) where every slope is at
 * most 1 (x * slope then lies on the right side of x for either sign), else
 * Relu(x) + Min(x, 0) * slope.
 */
function rewritePRelu(graph: IGraphProto, initializers: Map<string, ITensorProto>): { count: number; needsZero: boolean } {
  const nodes: INodeProto[] = [];
  let count = 0;
  let needsZero = false;
  for (const node of graph.node ?? []) {
    const [x, slopeName] = node.input ?? [];
    const slope = slopeName === undefined ? undefined : initializers.get(slopeName);
    const y = node.output?.[0];
    if (node.opType !== 'PRelu' || !x || !slopeName || !y || !slope || slope.dataType !== FLOAT) {
      nodes.push(node);
      continue;
    }
    const p = `vigil_prelu_${count}`;
    if (floatValues(slope).every((a) => a <= 1)) {
      nodes.push({ opType: 'Mul', name: `${p}_mul`, input: [x, slopeName], output: [`${p}_scaled`] });
      nodes.push({ opType: 'Max', name: `${p}_max`, input: [x, `${p}_scaled`], output: [y] });
    } else {
      needsZero = true;
      nodes.push({ opType: 'Relu', name: `${p}_relu`, input: [x], output: [`${p}_positive`] });
      nodes.push({ opType: 'Min', name: `${p}_min`, input: [x, ZERO], output: [`${p}_negative`] });
      nodes.push({ opType: 'Mul', name: `${p}_mul`, input: [`${p}_negative`, slopeName], output: [`${p}_scaled`] });
      nodes.push({ opType: 'Add', name: `${p}_add`, input: [`${p}_positive`, `${p}_scaled`], output: [y] });
    }
    count++;
  }
  graph.node = nodes;
  return { count, needsZero };
}

/**
 * Relu(x) whose only consumer is Min(., c) with a float scalar c >= 0, and the Max(., 0) that
 * may follow it (a no-op on values already in [0, c]): one Clip(x, 0, c).
 */
function rewriteReluClip(graph: IGraphProto, scalar: (name: string | undefined) => number | undefined): number {
  const nodes = graph.node ?? [];
  const consumers = new Map<string, INodeProto[]>();
  for (const n of nodes) for (const i of n.input ?? []) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  const graphOutputs = new Set((graph.output ?? []).map((o) => o.name));
  const soleConsumer = (value: string | undefined, op: string): INodeProto | undefined => {
    if (value === undefined || graphOutputs.has(value)) return undefined;
    const cs = consumers.get(value) ?? [];
    return cs.length === 1 && cs[0]!.opType === op && cs[0]!.input?.[0] === value ? cs[0] : undefined;
  };
  const replaced = new Map<INodeProto, INodeProto | null>();
  let count = 0;
  for (const relu of nodes) {
    if (relu.opType !== 'Relu') continue;
    const min = soleConsumer(relu.output?.[0], 'Min');
    const ceiling = scalar(min?.input?.[1]);
    if (!min || min.input?.length !== 2 || ceiling === undefined || !(ceiling >= 0)) continue;
    const max = soleConsumer(min.output?.[0], 'Max');
    const foldMax = max !== undefined && max.input?.length === 2 && scalar(max.input[1]) === 0;
    const out = foldMax ? max!.output![0]! : min.output![0]!;
    replaced.set(relu, { opType: 'Clip', name: `vigil_clip_${count}`, input: [relu.input![0]!, ZERO, min.input[1]!], output: [out] });
    replaced.set(min, null);
    if (foldMax) replaced.set(max!, null);
    count++;
  }
  if (count > 0) graph.node = nodes.flatMap((n) => (replaced.has(n) ? (replaced.get(n) ? [replaced.get(n)!] : []) : [n]));
  return count;
}
