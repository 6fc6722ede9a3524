/**
 * An image model's float32 NCHW input, described by its interleaved RGB bytes and the
 * normalisation instead of sent as floats: the inference worker fills it into a buffer it keeps
 * per model and shape. A 640x480 detector input is 3.7 MB of floats: allocated fresh for every
 * request on the main thread, its pages were faulted in and zeroed each time before the fill
 * (bench/face-overhead.ts), and it was handed to the worker to be dropped after one run. The
 * bytes are a quarter of that and the worker's buffer is touched once.
 */
export interface ImageFeed {
  /** The model input's name. */
  name: string;
  /** Interleaved RGB bytes, `width` x `height`. */
  rgb: Uint8Array;
  width: number;
  height: number;
  /** The tensor's [1, 3, H, W]: at least the image, the rest padding. */
  dims: [1, 3, number, number];
  /** Where the image starts in the tensor (a margin on the top and left). */
  offsetX: number;
  offsetY: number;
  /** Channel order the model wants. */
  order: 'rgb' | 'bgr';
  /** value = (byte - mean) / std. */
  mean: number;
  std: number;
  /**
   * The byte the padding stands for: 0 when absent (insightface pastes onto a zero canvas); YOLOX
   * pads with 114, the text recogniser with the float 0 (127.5 at its mean and std of 127.5).
   */
  padByte?: number;
  /**
   * The tensor's width changes from run to run (a text line's, one step per 8 pixels): the worker
   * keeps one buffer per power-of-two class of widths for it rather than one per width, which
   * across a few hundred widths would hold over 100 MB.
   */
  widthVaries?: boolean;
}

/** The float every padding element holds. */
export function padValue(feed: ImageFeed): number {
  return ((feed.padByte ?? 0) - feed.mean) / feed.std;
}

/** Words read least significant byte first (every platform onnxruntime-node ships for). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Fills `out` (3 x H x W floats, every element written) with the feed's tensor; returns it. */
export function fillImageTensor(feed: ImageFeed, out: Float32Array): Float32Array {
  const [, , H, W] = feed.dims;
  const plane = W * H;
  if (out.length !== 3 * plane) throw new Error(`image feed ${feed.name}: buffer of ${out.length} floats for ${3 * plane}`);
  const { rgb: data, width, height, offsetX, offsetY } = feed;
  if (offsetX + width > W || offsetY + height > H) throw new Error(`image feed ${feed.name}: ${width}x${height} at ${offsetX},${offsetY} does not fit ${W}x${H}`);
  // A reused buffer holds the last image: padding is written whenever there is any.
  if (W > width || H > height) out.fill(padValue(feed));
  // One table lookup per byte instead of a subtract and a multiply.
  const table = new Float32Array(256);
  for (let v = 0; v < 256; v++) table[v] = (v - feed.mean) / feed.std;
  // The planes of red, green and blue: 'rgb' puts red first, 'bgr' blue.
  const first = out.subarray(0, plane);
  const green = out.subarray(plane, 2 * plane);
  const last = out.subarray(2 * plane);
  const [red, blue] = feed.order === 'rgb' ? [first, last] : [last, first];
  // The bytes read 4 at a time where they can be, 4 pixels from 3 words: 0.76 against 1.27 ms
  // byte by byte for a 640x480 canvas. The words' view starts on the 4-byte boundary at or
  // before the bytes (a typed array's offset must be one).
  const base = data.byteOffset & ~3;
  const words = LITTLE_ENDIAN ? new Uint32Array(data.buffer, base, (data.byteOffset + data.length - base) >>> 2) : null;
  for (let y = 0; y < height; y++) {
    let src = y * width * 3;
    let dst = (y + offsetY) * W + offsetX;
    const end = dst + width;
    if (words) {
      // Pixel by pixel up to a 4-byte boundary: a pixel is 3 bytes, so k pixels for a start k bytes past one.
      const lead = Math.min(width, (data.byteOffset + src) & 3);
      for (const stop = dst + lead; dst < stop; src += 3, dst++) {
        red[dst] = table[data[src]!]!;
        green[dst] = table[data[src + 1]!]!;
        blue[dst] = table[data[src + 2]!]!;
      }
      const stop = end - ((end - dst) & 3);
      fourAtATime(words, (data.byteOffset + src - base) >>> 2, table, red, green, blue, dst, stop);
      src += ((stop - dst) / 4) * 12;
      dst = stop;
    }
    for (; dst < end; src += 3, dst++) {
      red[dst] = table[data[src]!]!;
      green[dst] = table[data[src + 1]!]!;
      blue[dst] = table[data[src + 2]!]!;
    }
  }
  return out;
}

/** Pixels dst..stop (a multiple of 4) from words w on: w0 = R0 G0 B0 R1, w1 = G1 B1 R2 G2, w2 = B2 R3 G3 B3, least significant byte first. */
function fourAtATime(words: Uint32Array, w: number, table: Float32Array, red: Float32Array, green: Float32Array, blue: Float32Array, dst: number, stop: number): void {
  for (; dst < stop; dst += 4, w += 3) {
    const a = words[w]!;
    const b = words[w + 1]!;
    const c = words[w + 2]!;
    red[dst] = table[a & 255]!;
    green[dst] = table[(a >>> 8) & 255]!;
    blue[dst] = table[(a >>> 16) & 255]!;
    red[dst + 1] = table[a >>> 24]!;
    green[dst + 1] = table[b & 255]!;
    blue[dst + 1] = table[(b >>> 8) & 255]!;
    red[dst + 2] = table[(b >>> 16) & 255]!;
    green[dst + 2] = table[b >>> 24]!;
    blue[dst + 2] = table[c & 255]!;
    red[dst + 3] = table[(c >>> 8) & 255]!;
    green[dst + 3] = table[(c >>> 16) & 255]!;
    blue[dst + 3] = table[c >>> 24]!;
  }
}

/** Elements of the feed's tensor. */
export function imageFeedSize(feed: ImageFeed): number {
  return 3 * feed.dims[2] * feed.dims[3];
}
