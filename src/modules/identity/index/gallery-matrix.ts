import { SCAN_KERNELS_WASM_BASE64 } from './scan-kernels.wasm.js';

/** How a scan scores rows: float32 dot products, or int8 codes (4x fewer bytes to read). */
export type ScanMode = 'exact' | 'int8';

interface Kernels {
  scan_f32(q: number, vecs: number, n: number, dim: number, out: number): void;
  scan_i8(q: number, codes: number, scales: number, n: number, dim: number, out: number): void;
}

const PAGE = 65536;
/** wasm32 addresses 4 GiB; V8 allows all of it. */
const MAX_BYTES = 4 * 1024 ** 3;
/** The int16 query scale: 13 bits keeps sum(int8 x int16) inside int32 up to 2,048 dimensions. */
const QUERY_LEVELS = 8191;

let compiled: WebAssembly.Module | null = null;
function kernelModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(Buffer.from(SCAN_KERNELS_WASM_BASE64, 'base64'));
  return compiled;
}

const align = (n: number, to: number) => Math.ceil(n / to) * to;

/** Byte offsets of the regions for one capacity; every region starts 16-byte aligned. */
function layout(dim: number, capacity: number) {
  const qf32 = 0;
  const qi16 = align(qf32 + dim * 4, 16);
  const out = align(qi16 + dim * 2, 16);
  const scales = align(out + capacity * 4, 16);
  const codes = align(scales + capacity * 4, 16);
  const vecs = align(codes + capacity * dim, 16);
  const end = vecs + capacity * dim * 4;
  return { qf32, qi16, out, scales, codes, vecs, end };
}

/**
 * The rows of one gallery in WebAssembly memory: each unit-length embedding as float32
 * (exact scores, re-ranking) and as int8 codes with a per-row scale (the fast scan of
 * large galleries). Rows are dense 0..size-1: removal moves the last row into the hole,
 * so a scan never skips anything. Not thread-safe; one instance per watchlist.
 */
export class GalleryMatrix {
  private readonly memory: WebAssembly.Memory;
  private readonly kernels: Kernels;
  private capacity = 0;
  private lay: ReturnType<typeof layout>;
  private f32!: Float32Array;
  private i8!: Int8Array;
  private i16!: Int16Array;
  private count = 0;

  constructor(
    readonly dim: number,
    initialCapacity = 1024,
  ) {
    if (!Number.isInteger(dim) || dim <= 0 || dim % 16 !== 0) throw new Error(`embedding dimension must be a multiple of 16 (got ${dim})`);
    const instance = new WebAssembly.Instance(kernelModule(), {});
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.kernels = instance.exports as unknown as Kernels;
    this.lay = layout(dim, 0);
    this.grow(Math.max(2, initialCapacity));
  }

  get size(): number {
    return this.count;
  }

  /** Bytes the matrix holds in WebAssembly memory (for /admin and the benchmarks). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Rows this matrix can ever hold (wasm32's 4 GiB). */
  static maxRows(dim: number): number {
    return Math.floor((MAX_BYTES - 4096) / (dim * 5 + 8)) & ~1;
  }

  /** Appends a unit-length row; returns its index. */
  add(vec: Float32Array): number {
    if (vec.length !== this.dim) throw new Error(`expected a ${this.dim}-D embedding, got ${vec.length}-D`);
    if (this.count === this.capacity) this.grow(this.capacity * 2);
    const row = this.count++;
    this.write(row, vec);
    return row;
  }

  /** Removes a row by moving the last row into its place; returns the index that moved (or -1). */
  removeSwap(row: number): number {
    if (row < 0 || row >= this.count) throw new RangeError(`row ${row} out of 0..${this.count - 1}`);
    const last = --this.count;
    if (row === last) return -1;
    const { vecs, codes, scales } = this.lay;
    const d = this.dim;
    this.f32.copyWithin((vecs >> 2) + row * d, (vecs >> 2) + last * d, (vecs >> 2) + (last + 1) * d);
    this.i8.copyWithin(codes + row * d, codes + last * d, codes + (last + 1) * d);
    this.f32[(scales >> 2) + row] = this.f32[(scales >> 2) + last]!;
    return last;
  }

  /**
   * Views of the used part of each region, for a snapshot: float32 rows, int8 codes and
   * row scales (valid until the next add).
   */
  regions(): { vecs: Uint8Array; codes: Uint8Array; scales: Uint8Array } {
    const { vecs, codes, scales } = this.lay;
    const buf = this.memory.buffer;
    const n = this.count;
    return {
      vecs: new Uint8Array(buf, vecs, n * this.dim * 4),
      codes: new Uint8Array(buf, codes, n * this.dim),
      scales: new Uint8Array(buf, scales, n * 4),
    };
  }

  /** A matrix of `rows` rows whose regions `fill` writes straight into WebAssembly memory. */
  static restore(dim: number, rows: number, fill: (regions: { vecs: Uint8Array; codes: Uint8Array; scales: Uint8Array }) => void): GalleryMatrix {
    const m = new GalleryMatrix(dim, Math.max(1024, rows + 1));
    m.count = rows;
    fill(m.regions());
    return m;
  }

  /** A view of one row's float32 values (valid until the next add). */
  row(row: number): Float32Array {
    const start = (this.lay.vecs >> 2) + row * this.dim;
    return this.f32.subarray(start, start + this.dim);
  }

  /**
   * Scores every row against the query (unit length). Returns a view of `size` scores,
   * valid until the next scan or add: exact cosines, or int8 estimates whose order is
   * what matters (they are re-ranked exactly by the caller).
   */
  scan(query: Float32Array, mode: ScanMode): Float32Array {
    const { qf32, qi16, out, scales, codes, vecs } = this.lay;
    if (mode === 'exact') {
      this.f32.set(query, qf32 >> 2);
      this.kernels.scan_f32(qf32, vecs, this.count, this.dim, out);
    } else {
      let max = 0;
      for (let j = 0; j < this.dim; j++) max = Math.max(max, Math.abs(query[j]!));
      const k = max > 0 ? QUERY_LEVELS / max : 0;
      const q = this.i16;
      const base = qi16 >> 1;
      for (let j = 0; j < this.dim; j++) q[base + j] = Math.round(query[j]! * k);
      this.kernels.scan_i8(qi16, codes, scales, this.count, this.dim, out);
    }
    return this.f32.subarray(out >> 2, (out >> 2) + this.count);
  }

  private write(row: number, vec: Float32Array): void {
    const { vecs, codes, scales } = this.lay;
    const d = this.dim;
    this.f32.set(vec, (vecs >> 2) + row * d);
    let max = 0;
    for (let j = 0; j < d; j++) max = Math.max(max, Math.abs(vec[j]!));
    const k = max > 0 ? 127 / max : 0;
    const base = codes + row * d;
    for (let j = 0; j < d; j++) this.i8[base + j] = Math.round(vec[j]! * k);
    this.f32[(scales >> 2) + row] = max / 127;
  }

  /** Grows to `capacity` rows: every region moves up, so move them last-first (memmove). */
  private grow(capacity: number): void {
    capacity = align(capacity, 2);
    const max = GalleryMatrix.maxRows(this.dim);
    if (capacity > max) {
      if (this.capacity >= max) throw new RangeError(`gallery is full: ${max} rows of ${this.dim}-D fit in 4 GiB of WebAssembly memory`);
      capacity = max;
    }
    const next = layout(this.dim, capacity);
    const have = this.memory.buffer.byteLength;
    if (next.end > have) this.memory.grow(Math.ceil((next.end - have) / PAGE));
    const bytes = new Uint8Array(this.memory.buffer);
    const old = this.lay;
    const n = this.count;
    const d = this.dim;
    bytes.copyWithin(next.vecs, old.vecs, old.vecs + n * d * 4);
    bytes.copyWithin(next.codes, old.codes, old.codes + n * d);
    bytes.copyWithin(next.scales, old.scales, old.scales + n * 4);
    this.lay = next;
    this.capacity = capacity;
    this.f32 = new Float32Array(this.memory.buffer);
    this.i8 = new Int8Array(this.memory.buffer);
    this.i16 = new Int16Array(this.memory.buffer);
  }
}
