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
  /** value = (byte - mean) / std; per channel, in R, G, B order, where the model's statistics differ by channel. */
  mean: number | Rgb;
  std: number | Rgb;
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

/** One number per channel, in R, G, B order. */
export type Rgb = readonly [number, number, number];

/** The feed's mean and std of channel `c` (0 red, 1 green, 2 blue). */
export function channelStats(feed: Pick<ImageFeed, 'mean' | 'std'>, c: 0 | 1 | 2): { mean: number; std: number } {
  return { mean: typeof feed.mean === 'number' ? feed.mean : feed.mean[c], std: typeof feed.std === 'number' ? feed.std : feed.std[c] };
}

/** The float every padding element of channel `c` holds. */
export function padValue(feed: ImageFeed, c: 0 | 1 | 2 = 0): number {
  const { mean, std } = channelStats(feed, c);
  return ((feed.padByte ?? 0) - mean) / std;
}

/** Byte -> float tables of the red, green and blue channels (one shared table when the statistics are). */
function channelTables(feed: ImageFeed): [Float32Array, Float32Array, Float32Array] {
  const table = (c: 0 | 1 | 2) => {
    const { mean, std } = channelStats(feed, c);
    const t = new Float32Array(256);
    for (let v = 0; v < 256; v++) t[v] = (v - mean) / std;
    return t;
  };
  if (typeof feed.mean === 'number' && typeof feed.std === 'number') {
    const t = table(0);
    return [t, t, t];
  }
  return [table(0), table(1), table(2)];
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
  // The planes of red, green and blue: 'rgb' puts red first, 'bgr' blue.
  const first = out.subarray(0, plane);
  const green = out.subarray(plane, 2 * plane);
  const last = out.subarray(2 * plane);
  const [red, blue] = feed.order === 'rgb' ? [first, last] : [last, first];
  // A reused buffer holds the last image: padding is written whenever there is any.
  if (W > width || H > height) {
    red.fill(padValue(feed, 0));
    green.fill(padValue(feed, 1));
    blue.fill(padValue(feed, 2));
  }
  // One table lookup per byte instead of a subtract and a multiply.
  const [tr, tg, tb] = channelTables(feed);
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
        red[dst] = tr[data[src]!]!;
        green[dst] = tg[data[src + 1]!]!;
        blue[dst] = tb[data[src + 2]!]!;
      }
      const stop = end - ((end - dst) & 3);
      fourAtATime(words, (data.byteOffset + src - base) >>> 2, tr, tg, tb, red, green, blue, dst, stop);
      src += ((stop - dst) / 4) * 12;
      dst = stop;
    }
    for (; dst < end; src += 3, dst++) {
      red[dst] = tr[data[src]!]!;
      green[dst] = tg[data[src + 1]!]!;
      blue[dst] = tb[data[src + 2]!]!;
    }
  }
  return out;
}

/** Pixels dst..stop (a multiple of 4) from words w on: w0 = R0 G0 B0 R1, w1 = G1 B1 R2 G2, w2 = B2 R3 G3 B3, least significant byte first. */
function fourAtATime(words: Uint32Array, w: number, tr: Float32Array, tg: Float32Array, tb: Float32Array, red: Float32Array, green: Float32Array, blue: Float32Array, dst: number, stop: number): void {
  for (; dst < stop; dst += 4, w += 3) {
    const a = words[w]!;
    const b = words[w + 1]!;
    const c = words[w + 2]!;
    red[dst] = tr[a & 255]!;
    green[dst] = tg[(a >>> 8) & 255]!;
    blue[dst] = tb[(a >>> 16) & 255]!;
    red[dst + 1] = tr[a >>> 24]!;
    green[dst + 1] = tg[b & 255]!;
    blue[dst + 1] = tb[(b >>> 8) & 255]!;
    red[dst + 2] = tr[(b >>> 16) & 255]!;
    green[dst + 2] = tg[b >>> 24]!;
    blue[dst + 2] = tb[c & 255]!;
    red[dst + 3] = tr[(c >>> 8) & 255]!;
    green[dst + 3] = tg[(c >>> 16) & 255]!;
    blue[dst + 3] = tb[c >>> 24]!;
  }
}

/** Elements of the feed's tensor. */
export function imageFeedSize(feed: ImageFeed): number {
  return 3 * feed.dims[2] * feed.dims[3];
}
