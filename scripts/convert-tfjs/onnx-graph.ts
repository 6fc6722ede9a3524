// A small builder over onnx-proto (the ONNX .proto compiled with protobufjs): the converter
// describes nodes and initializers, this file owns the protobuf messages and their encoding.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
type INodeProto = onnxProto.onnx.INodeProto;
type ITensorProto = onnxProto.onnx.ITensorProto;
type IValueInfoProto = onnxProto.onnx.IValueInfoProto;
type IAttributeProto = onnxProto.onnx.IAttributeProto;

/** ONNX opset the converter emits (Softmax on one axis, Slice/Squeeze/Unsqueeze/Clip take inputs). */
export const OPSET = 13;
/** IR version matching onnx-proto's definition (ONNX 1.10). */
export const IR_VERSION = 8;

export type AttrValue = { int: number } | { ints: number[] } | { float: number } | { floats: number[] } | { string: string };

export type ElemType = 'float32' | 'int32' | 'int64';
const ELEM: Record<ElemType, number> = { float32: onnx.TensorProto.DataType.FLOAT, int32: onnx.TensorProto.DataType.INT32, int64: onnx.TensorProto.DataType.INT64 };

/** A dimension: a fixed size, or -1 for a size known only at run time. */
export type Shape = number[];

function attribute(name: string, v: AttrValue): IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if ('int' in v) return { name, type: T.INT, i: v.int };
  if ('ints' in v) return { name, type: T.INTS, ints: v.ints };
  if ('float' in v) return { name, type: T.FLOAT, f: v.float };
  if ('floats' in v) return { name, type: T.FLOATS, floats: v.floats };
  return { name, type: T.STRING, s: new TextEncoder().encode(v.string) };
}

/** Little-endian bytes whatever the host, so the file is the same on every machine. */
function rawBytes(type: ElemType, values: ArrayLike<number>): Uint8Array {
  const width = type === 'int64' ? 8 : 4;
  const view = new DataView(new ArrayBuffer(values.length * width));
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (type === 'float32') view.setFloat32(i * 4, v, true);
    else if (type === 'int32') view.setInt32(i * 4, v, true);
    else view.setBigInt64(i * 8, BigInt(v), true);
  }
  return new Uint8Array(view.buffer);
}

function valueInfo(name: string, type: ElemType, shape: Shape | undefined): IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: ELEM[type],
        ...(shape ? { shape: { dim: shape.map((d, i) => (d >= 0 ? { dimValue: d } : { dimParam: i === 0 ? 'batch' : `dim${i}` })) } } : {}),
      },
    },
  };
}

export class OnnxGraph {
  nodes: INodeProto[] = [];
  private readonly initializers = new Map<string, ITensorProto>();
  private readonly inputs: IValueInfoProto[] = [];
  private readonly outputs: IValueInfoProto[] = [];
  private readonly used = new Set<string>();

  /** A value name not used yet, derived from `base`. */
  fresh(base: string): string {
    let name = base;
    for (let k = 1; this.used.has(name); k++) name = `${base}__${k}`;
    this.used.add(name);
    return name;
  }

  /** Reserves an exact name (a TF tensor name); two TF nodes cannot share one. */
  claim(name: string): string {
    if (this.used.has(name)) throw new Error(`duplicate value name ${name}`);
    this.used.add(name);
    return name;
  }

  hasInitializer(name: string): boolean {
    return this.initializers.has(name);
  }

  initializer(name: string, type: ElemType, dims: number[], values: ArrayLike<number>): string {
    const size = dims.reduce((a, b) => a * b, 1);
    if (size !== values.length) throw new Error(`initializer ${name}: ${values.length} values for dims [${dims}]`);
    this.initializers.set(name, { name, dataType: ELEM[type], dims, rawData: rawBytes(type, values) });
    return name;
  }

  /** A fresh int64 constant (shapes, axes, slice bounds). */
  int64(base: string, values: number[], dims: number[] = [values.length]): string {
    return this.initializer(this.fresh(base), 'int64', dims, values);
  }

  /** A fresh float32 constant. */
  float(base: string, values: number[], dims: number[] = [values.length]): string {
    return this.initializer(this.fresh(base), 'float32', dims, values);
  }

  node(op: string, inputs: string[], outputs: string[], attrs: Record<string, AttrValue> = {}, name?: string): void {
    this.nodes.push({
      opType: op,
      name: name ?? outputs[0],
      input: inputs,
      output: outputs,
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
  }

  input(name: string, type: ElemType, shape: Shape): void {
    this.inputs.push(valueInfo(name, type, shape));
  }

  output(name: string, type: ElemType, shape: Shape | undefined): void {
    this.outputs.push(valueInfo(name, type, shape));
  }

  outputNames(): string[] {
    return this.outputs.map((o) => o.name ?? '');
  }

  /** Drops nodes and initializers nothing reaches from the graph outputs. */
  prune(): void {
    const live = new Set(this.outputNames());
    const kept: INodeProto[] = [];
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const n = this.nodes[i]!;
      if ((n.output ?? []).some((o) => live.has(o))) {
        kept.push(n);
        for (const x of n.input ?? []) live.add(x);
      }
    }
    this.nodes = kept.reverse();
    for (const name of [...this.initializers.keys()]) if (!live.has(name)) this.initializers.delete(name);
  }

  encode(meta: { producerName: string; producerVersion: string; docString: string; graphName: string }): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: IR_VERSION,
      opsetImport: [{ domain: '', version: OPSET }],
      producerName: meta.producerName,
      producerVersion: meta.producerVersion,
      docString: meta.docString,
      graph: {
        name: meta.graphName,
        node: this.nodes,
        initializer: [...this.initializers.values()],
        input: this.inputs,
        output: this.outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

/** Decodes an ONNX file (tests and tools inspect what the converter wrote). */
export function decodeModel(bytes: Uint8Array): onnxProto.onnx.ModelProto {
  return onnx.ModelProto.decode(bytes);
}
