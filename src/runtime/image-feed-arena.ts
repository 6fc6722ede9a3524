import { IMAGE_FILL_WASM_BASE64 } from './image-fill.wasm.js';
import { fillImageTensor, imageFeedSize, padValue, type ImageFeed } from './image-feed.js';

/**
 * The inference worker's image inputs, kept in WebAssembly memory and filled there with SIMD
 * (image-fill.wat): a 640x480 detector input in 0.27 ms, the copy of its bytes included,
 * against 0.78 ms for fillImageTensor's four-pixels-a-word JavaScript (bench/image-fill.ts).
 * onnxruntime-node reads a tensor from a view on this memory as from any Float32Array, so the
 * floats are never copied out.
 *
 * One buffer per model and shape, as before, handed out one run at a time. The memory only
 * grows while no buffer is handed out: growing replaces the memory's ArrayBuffer, and a run in
 * flight must keep the one its tensor views. When a buffer cannot be handed out (in use, the
 * memory would have to grow under a run, or past MAX_BYTES) the caller fills a fresh array.
 */
export interface ImageLease {
  /** The feed's tensor, filled; valid until release(). */
  data: Float32Array;
  release(): void;
}

const PAGE = 65536;
/** Past this the arena stops growing (a few detector shapes and crops need about 20 MB). */
const MAX_BYTES = 256 * 1024 ** 2;

type FillPlanes = (src: number, n: number, r: number, g: number, b: number, mean: number, inv: number) => void;

let compiled: WebAssembly.Module | null = null;
function fillModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(Buffer.from(IMAGE_FILL_WASM_BASE64, 'base64'));
  return compiled;
}

const align16 = (n: number) => Math.ceil(n / 16) * 16;

/** The arena buffer an image feed is filled in, and the floats it is sized for (see ImageFeed.widthVaries). */
export function feedBuffer(key: string, image: ImageFeed): { key: string; capacity: number } {
  const [, c, h, w] = image.dims;
  if (!image.widthVaries) return { key: `${key}:${image.dims.join('x')}`, capacity: imageFeedSize(image) };
  const widthClass = 2 ** Math.ceil(Math.log2(Math.max(1, w)));
  return { key: `${key}:${c}x${h}x<=${widthClass}`, capacity: c * h * widthClass };
}

/**
 * Whether (byte - mean) * inv in float32, as the kernel computes it, gives fillImageTensor's
 * float for all 256 bytes. True for layouts whose std is a power of two (SCRFD 127.5/128, YuNet
 * and YOLOX 0/1); other layouts keep the JavaScript fill, so the tensor never changes.
 */
export function simdFillExact(mean: number, std: number): boolean {
  const m = Math.fround(mean);
  const inv = Math.fround(1 / std);
  for (let v = 0; v < 256; v++) if (Math.fround(Math.fround(v - m) * inv) !== Math.fround((v - mean) / std)) return false;
  return true;
}

export class ImageFeedArena {
  private readonly memory: WebAssembly.Memory;
  private readonly fillPlanes: FillPlanes;
  /** Each buffer by model and shape: its byte offset and the floats it holds. */
  private readonly buffers = new Map<string, { offset: number; floats: number }>();
  private readonly inUse = new Set<string>();
  /** Where the source bytes are copied, and its size (grown by doubling). */
  private source = { offset: 0, bytes: 0 };
  /** First free byte. */
  private top = 0;
  private readonly exact = new Map<string, boolean>();

  constructor() {
    const instance = new WebAssembly.Instance(fillModule(), {});
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.fillPlanes = instance.exports.fill_planes as FillPlanes;
  }

  /** Bytes of WebAssembly memory held (for tests). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * The feed's tensor in the buffer kept for `key`, or null when none can be handed out now.
   * `capacity` (floats, at least the feed's) sizes a new buffer for every feed that will share
   * the key: inputs whose width changes from run to run share one buffer per size class
   * instead of holding one per width. A feed larger than its key's buffer gets null.
   */
  lease(key: string, feed: ImageFeed, capacity = imageFeedSize(feed)): ImageLease | null {
    if (this.inUse.has(key)) return null;
    const floats = imageFeedSize(feed);
    const rgbBytes = feed.width * feed.height * 3;
    const idle = this.inUse.size === 0;
    let buffer = this.buffers.get(key);
    if (buffer === undefined) {
      const at = idle ? this.reserve(Math.max(floats, capacity) * 4) : null;
      if (at === null) return null;
      this.buffers.set(key, (buffer = { offset: at, floats: Math.max(floats, capacity) }));
    }
    if (floats > buffer.floats) return null;
    if (rgbBytes > this.source.bytes) {
      if (!idle) return null;
      const bytes = align16(Math.max(rgbBytes, 2 * this.source.bytes));
      const at = this.reserve(bytes);
      if (at === null) return null;
      this.source = { offset: at, bytes };
    }
    const data = new Float32Array(this.memory.buffer, buffer.offset, floats);
    this.fill(feed, data);
    this.inUse.add(key);
    return { data, release: () => this.inUse.delete(key) };
  }

  /** `bytes` at a 16-byte boundary above everything held, growing the memory; null past MAX_BYTES. */
  private reserve(bytes: number): number | null {
    const at = align16(this.top);
    const end = at + bytes;
    if (end > MAX_BYTES) return null;
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE));
    this.top = end;
    return at;
  }

  private fill(feed: ImageFeed, out: Float32Array): void {
    const { mean: byteMean, std: byteStd } = feed;
    // The kernel takes one mean and std for the three channels; statistics per channel keep the JavaScript fill.
    if (typeof byteMean !== 'number' || typeof byteStd !== 'number') {
      fillImageTensor(feed, out);
      return;
    }
    const exactKey = `${byteMean}/${byteStd}`;
    let exact = this.exact.get(exactKey);
    if (exact === undefined) this.exact.set(exactKey, (exact = simdFillExact(byteMean, byteStd)));
    if (!exact) {
      fillImageTensor(feed, out);
      return;
    }
    const [, , H, W] = feed.dims;
    const { width, height, offsetX, offsetY } = feed;
    if (offsetX + width > W || offsetY + height > H) throw new Error(`image feed ${feed.name}: ${width}x${height} at ${offsetX},${offsetY} does not fit ${W}x${H}`);
    const plane = W * H;
    if (W > width || H > height) out.fill(padValue(feed));
    new Uint8Array(this.memory.buffer, this.source.offset, feed.rgb.length).set(feed.rgb);
    // Plane addresses in bytes: 'rgb' puts red first, 'bgr' blue.
    const first = out.byteOffset;
    const green = first + plane * 4;
    const last = first + 2 * plane * 4;
    const [red, blue] = feed.order === 'rgb' ? [first, last] : [last, first];
    const mean = Math.fround(byteMean);
    const inv = Math.fround(1 / byteStd);
    // Rows that follow each other in the tensor are one run; otherwise one run a row.
    const runs = offsetX === 0 && width === W ? [[0, width * height]] : Array.from({ length: height }, (_, y) => [y, width]);
    const r = new Float32Array(this.memory.buffer, red, plane);
    const g = new Float32Array(this.memory.buffer, green, plane);
    const b = new Float32Array(this.memory.buffer, blue, plane);
    for (const [y, n] of runs as [number, number][]) {
      const src = y * width * 3;
      const dst = (y + offsetY) * W + offsetX;
      const simd = n & ~15;
      if (simd > 0) this.fillPlanes(this.source.offset + src, simd, red + dst * 4, green + dst * 4, blue + dst * 4, mean, inv);
      // The last 0-15 pixels of a run, one at a time.
      for (let i = simd; i < n; i++) {
        const s = src + i * 3;
        r[dst + i] = (feed.rgb[s]! - byteMean) / byteStd;
        g[dst + i] = (feed.rgb[s + 1]! - byteMean) / byteStd;
        b[dst + i] = (feed.rgb[s + 2]! - byteMean) / byteStd;
      }
    }
  }
}
