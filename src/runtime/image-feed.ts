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
  /** value = (byte - mean) / std; padding is a zero byte (insightface pastes onto a zero canvas). */
  mean: number;
  std: number;
}

/** Fills `out` (3 x H x W floats, every element written) with the feed's tensor; returns it. */
export function fillImageTensor(feed: ImageFeed, out: Float32Array): Float32Array {
  const [, , H, W] = feed.dims;
  const plane = W * H;
  if (out.length !== 3 * plane) throw new Error(`image feed ${feed.name}: buffer of ${out.length} floats for ${3 * plane}`);
  const { rgb: data, width, height, offsetX, offsetY } = feed;
  if (offsetX + width > W || offsetY + height > H) throw new Error(`image feed ${feed.name}: ${width}x${height} at ${offsetX},${offsetY} does not fit ${W}x${H}`);
  // A reused buffer holds the last image: padding is written whenever there is any.
  if (W > width || H > height) out.fill((0 - feed.mean) / feed.std);
  // One table lookup per byte instead of a subtract and a multiply: 2.3 against 2.9 ms for a
  // 640x480 canvas.
  const table = new Float32Array(256);
  for (let v = 0; v < 256; v++) table[v] = (v - feed.mean) / feed.std;
  // RGB source: plane 0 gets R for 'rgb', B for 'bgr'.
  const c0 = feed.order === 'rgb' ? 0 : 2;
  const c2 = 2 - c0;
  for (let y = 0; y < height; y++) {
    let src = y * width * 3;
    let dst = (y + offsetY) * W + offsetX;
    for (let x = 0; x < width; x++, src += 3, dst++) {
      out[dst] = table[data[src + c0]!]!;
      out[dst + plane] = table[data[src + 1]!]!;
      out[dst + 2 * plane] = table[data[src + c2]!]!;
    }
  }
  return out;
}

/** Elements of the feed's tensor. */
export function imageFeedSize(feed: ImageFeed): number {
  return 3 * feed.dims[2] * feed.dims[3];
}
