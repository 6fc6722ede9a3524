// Reads a TensorFlow.js graph model (model.json + binary weight shards) into plain arrays.
// The weight decoding follows tfjs-core's io_utils.decodeWeights exactly (same dequantisation
// arithmetic, same float16 tables), so the converted ONNX file holds bit-identical float32
// weights to the ones the TFJS reference runs with.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One attribute of a node, as the TFJS converter writes it (proto3 JSON of tensorflow.AttrValue). */
export interface TfjsAttr {
  s?: string;
  i?: string | number;
  f?: number;
  b?: boolean;
  type?: string;
  shape?: TfjsShape;
  list?: { s?: string[]; i?: (string | number)[]; f?: number[]; b?: boolean[]; type?: string[]; shape?: TfjsShape[] };
  tensor?: { dtype?: string; tensorShape?: TfjsShape };
  func?: unknown;
}

export interface TfjsShape {
  dim?: { size?: string | number }[];
  unknownRank?: boolean;
}

export interface TfjsNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfjsAttr>;
  device?: string;
}

export interface TfjsWeightSpec {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: { dtype: string; min?: number; scale?: number };
}

export interface TfjsSignatureEntry {
  name: string;
  dtype?: string;
  tensorShape?: TfjsShape;
}

export interface TfjsModelJson {
  format?: string;
  generatedBy?: string;
  convertedBy?: string;
  modelTopology: { node: TfjsNode[]; library?: { function?: unknown[] }; versions?: unknown };
  weightsManifest: { paths: string[]; weights: TfjsWeightSpec[] }[];
  signature?: { inputs?: Record<string, TfjsSignatureEntry>; outputs?: Record<string, TfjsSignatureEntry> };
}

export type WeightData = { dtype: 'float32'; shape: number[]; data: Float32Array } | { dtype: 'int32'; shape: number[]; data: Int32Array };

export interface TfjsModel {
  json: TfjsModelJson;
  weights: Map<string, WeightData>;
}

const BYTES: Record<string, number> = { float32: 4, int32: 4, uint8: 1, uint16: 2, float16: 2 };

/** float16 -> float32 with the lookup tables of tfjs-core (fasthalffloatconversion.pdf). */
function float16Decoder(): (bits: Uint16Array) => Float32Array {
  const mantissa = new Uint32Array(2048);
  for (let i = 1; i < 1024; i++) {
    let m = i << 13;
    let e = 0;
    while ((m & 0x00800000) === 0) {
      e -= 0x00800000;
      m <<= 1;
    }
    m &= ~0x00800000;
    e += 0x38800000;
    mantissa[i] = m | e;
  }
  for (let i = 1024; i < 2048; i++) mantissa[i] = 0x38000000 + ((i - 1024) << 13);
  const exponent = new Uint32Array(64);
  exponent[31] = 0x47800000;
  exponent[32] = 0x80000000;
  exponent[63] = 0xc7800000;
  for (let i = 1; i < 31; i++) exponent[i] = i << 23;
  for (let i = 33; i < 63; i++) exponent[i] = 0x80000000 + ((i - 32) << 23);
  const offset = new Uint32Array(64).fill(1024);
  offset[0] = 0;
  offset[32] = 0;
  return (bits) => {
    const out = new Uint32Array(bits.length);
    for (let k = 0; k < bits.length; k++) {
      const h = bits[k]!;
      out[k] = mantissa[offset[h >> 10]! + (h & 0x3ff)]! + exponent[h >> 10]!;
    }
    return new Float32Array(out.buffer);
  };
}

/** Decodes the concatenated shards into named weights. */
export function decodeWeights(specs: TfjsWeightSpec[], buffer: Uint8Array): Map<string, WeightData> {
  const out = new Map<string, WeightData>();
  let offset = 0;
  let half: ((bits: Uint16Array) => Float32Array) | undefined;
  for (const spec of specs) {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const q = spec.quantization;
    const storedType = q ? q.dtype : spec.dtype;
    const width = BYTES[storedType];
    if (width === undefined) throw new Error(`weight ${spec.name}: unsupported stored dtype ${storedType}`);
    const bytes = size * width;
    if (offset + bytes > buffer.byteLength) throw new Error(`weight ${spec.name}: shards hold ${buffer.byteLength} bytes, need ${offset + bytes}`);
    // Copy so the typed arrays below are aligned whatever the offset.
    const raw = buffer.slice(offset, offset + bytes).buffer;
    offset += bytes;
    if (spec.dtype === 'float32') {
      let data: Float32Array;
      if (!q) data = new Float32Array(raw);
      else if (q.dtype === 'float16') data = (half ??= float16Decoder())(new Uint16Array(raw));
      else if (q.dtype === 'uint8' || q.dtype === 'uint16') {
        if (q.min === undefined || q.scale === undefined) throw new Error(`weight ${spec.name}: ${q.dtype} quantization without min/scale`);
        const src = q.dtype === 'uint8' ? new Uint8Array(raw) : new Uint16Array(raw);
        data = new Float32Array(size);
        for (let i = 0; i < size; i++) data[i] = src[i]! * q.scale + q.min;
      } else throw new Error(`weight ${spec.name}: unsupported quantization ${q.dtype}`);
      out.set(spec.name, { dtype: 'float32', shape: spec.shape, data });
    } else if (spec.dtype === 'int32') {
      let data: Int32Array;
      if (!q) data = new Int32Array(raw);
      else if (q.dtype === 'uint8' || q.dtype === 'uint16') {
        if (q.min === undefined || q.scale === undefined) throw new Error(`weight ${spec.name}: ${q.dtype} quantization without min/scale`);
        const src = q.dtype === 'uint8' ? new Uint8Array(raw) : new Uint16Array(raw);
        data = new Int32Array(size);
        for (let i = 0; i < size; i++) data[i] = Math.round(src[i]! * q.scale + q.min);
      } else throw new Error(`weight ${spec.name}: unsupported quantization ${q.dtype} for int32`);
      out.set(spec.name, { dtype: 'int32', shape: spec.shape, data });
    } else {
      throw new Error(`weight ${spec.name}: unsupported dtype ${spec.dtype}`);
    }
  }
  if (offset !== buffer.byteLength) throw new Error(`weight shards hold ${buffer.byteLength} bytes but the manifest describes ${offset}`);
  return out;
}

/** The shard files a model.json names, in order (relative to its folder). */
export function shardPaths(json: TfjsModelJson): string[] {
  return json.weightsManifest.flatMap((group) => group.paths);
}

/** Loads model.json and its shards from disk. */
export function loadTfjsModel(jsonPath: string): TfjsModel {
  const json = JSON.parse(readFileSync(jsonPath, 'utf8')) as TfjsModelJson;
  if (json.format !== undefined && json.format !== 'graph-model') throw new Error(`${jsonPath}: format ${json.format} is not a TFJS graph model`);
  if (!json.modelTopology?.node) throw new Error(`${jsonPath}: no modelTopology.node (only graph models are supported)`);
  if (json.modelTopology.library?.function?.length) throw new Error(`${jsonPath}: graph functions (control flow) are not supported`);
  const dir = dirname(jsonPath);
  const shards = shardPaths(json).map((p) => readFileSync(join(dir, p)));
  const specs = json.weightsManifest.flatMap((group) => group.weights);
  return { json, weights: decodeWeights(specs, new Uint8Array(Buffer.concat(shards))) };
}
