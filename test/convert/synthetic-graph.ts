// Builds small TFJS graph models by hand (the JSON the TFJS converter writes, plus weight bytes)
// so each op, padding mode and mask the converter claims to support can be checked against TFJS.
import type { TfjsAttr, TfjsModelJson, TfjsNode, TfjsWeightSpec } from '../../scripts/convert-tfjs/tfjs-model.js';

export const attr = {
  s: (v: string): TfjsAttr => ({ s: Buffer.from(v).toString('base64') }),
  i: (v: number): TfjsAttr => ({ i: String(v) }),
  f: (v: number): TfjsAttr => ({ f: v }),
  b: (v: boolean): TfjsAttr => ({ b: v }),
  ints: (v: number[]): TfjsAttr => ({ list: { i: v.map(String) } }),
  strs: (v: string[]): TfjsAttr => ({ list: { s: v.map((x) => Buffer.from(x).toString('base64')) } }),
  float: (): TfjsAttr => ({ type: 'DT_FLOAT' }),
};

/** IEEE half bits of a float (round to nearest even), for float16-quantised test weights. */
function toHalf(v: number): number {
  const f = new Float32Array([v]);
  const x = new Uint32Array(f.buffer)[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = mant >> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    return sign | (half + (rem > mid || (rem === mid && half & 1) ? 1 : 0));
  }
  if (exp >= 31) return sign | 0x7c00;
  let h = sign | (exp << 10) | (mant >> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++;
  return h;
}

/** Deterministic pseudo-random values in [lo, hi). */
export function values(n: number, seed: number, lo = -1, hi = 1): number[] {
  let s = seed >>> 0 || 1;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push(lo + ((hi - lo) * s) / 2 ** 32);
  }
  return out;
}

export class SyntheticGraph {
  private readonly nodes: TfjsNode[] = [];
  private readonly specs: TfjsWeightSpec[] = [];
  private readonly chunks: Buffer[] = [];

  placeholder(name: string, shape: number[]): string {
    this.nodes.push({ name, op: 'Placeholder', attr: { dtype: { type: 'DT_FLOAT' }, shape: { shape: { dim: shape.map((d) => ({ size: String(d) })) } } } });
    return name;
  }

  /** A constant; `quantization` stores it as TFJS does for quantised models. */
  constant(name: string, shape: number[], data: number[], dtype: 'float32' | 'int32' = 'float32', quantization?: 'float16' | 'uint8'): string {
    const size = shape.reduce((a, b) => a * b, 1);
    if (size !== data.length) throw new Error(`${name}: ${data.length} values for [${shape}]`);
    const spec: TfjsWeightSpec = { name, shape, dtype };
    if (quantization === 'float16') {
      spec.quantization = { dtype: 'float16' };
      this.chunks.push(Buffer.from(new Uint16Array(data.map(toHalf)).buffer));
    } else if (quantization === 'uint8') {
      const min = Math.min(...data);
      const scale = (Math.max(...data) - min) / 255 || 1;
      spec.quantization = { dtype: 'uint8', min, scale };
      this.chunks.push(Buffer.from(new Uint8Array(data.map((v) => Math.round((v - min) / scale)))));
    } else {
      this.chunks.push(Buffer.from((dtype === 'int32' ? new Int32Array(data) : new Float32Array(data)).buffer));
    }
    this.specs.push(spec);
    const tfType = dtype === 'int32' ? 'DT_INT32' : 'DT_FLOAT';
    this.nodes.push({ name, op: 'Const', attr: { dtype: { type: tfType }, value: { tensor: { dtype: tfType, tensorShape: { dim: shape.map((d) => ({ size: String(d) })) } } } } });
    return name;
  }

  op(op: string, name: string, inputs: string[], attrs: Record<string, TfjsAttr> = {}): string {
    this.nodes.push({ name, op, input: inputs, attr: attrs });
    return name;
  }

  build(outputs?: string[]): { json: TfjsModelJson; weights: Uint8Array } {
    const json: TfjsModelJson = {
      format: 'graph-model',
      generatedBy: 'vigil test',
      convertedBy: 'vigil test',
      modelTopology: { node: this.nodes, versions: {} },
      weightsManifest: [{ paths: ['weights.bin'], weights: this.specs }],
    };
    if (outputs) json.signature = { outputs: Object.fromEntries(outputs.map((o) => [o, { name: `${o}:0` }])) };
    return { json, weights: new Uint8Array(Buffer.concat(this.chunks)) };
  }
}
