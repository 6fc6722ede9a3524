import sharp from 'sharp';
import type { RgbImage } from '../../core/image-decode.js';

/** The image as the detector sees it: resized by `scale`, pasted at the top-left of a canvas of multiples of 32. */
export interface DetectorCanvas {
  /** Resized pixels (the original buffer when scale is 1). */
  pixels: RgbImage;
  /** resized / original; detector coordinates divide by it. */
  scale: number;
  inputWidth: number;
  inputHeight: number;
  /** Where the pixels start in the canvas (a margin on the top and left when edge padding is on). */
  offsetX: number;
  offsetY: number;
}

export interface CanvasOptions {
  /** Largest detector input [width, height] (face.det_size). */
  detSize: readonly [number, number];
  /**
   * Small images are normally fed at their own size (never upscaled: a tight crop blown up
   * to 640 hides its face from SCRFD). With this set, an image whose longer side is under
   * SMALL_IMAGE_SIDE is enlarged up to that side (at most 4x) for tiny faces in tiny images.
   */
  upscaleSmall?: boolean;
  /**
   * Margin of black added on every side, as a fraction of each side of the resized image, so
   * that a face cut by the frame's top or left edge is not also cut by the detector's canvas
   * border (bench/eval-face-edge.ts measures it). The image keeps its scale; the canvas grows.
   */
  edgePad?: number;
}

export const SMALL_IMAGE_SIDE = 320;
const MAX_UPSCALE = 4;

function roundUp32(n: number): number {
  return Math.max(32, Math.ceil(n / 32) * 32);
}

/**
 * Chooses the detector input from the image size: downscale to fit det_size keeping the
 * aspect ratio, never upscale (unless asked), round each side up to a multiple of 32 and
 * leave the rest as padding. The resize runs in libvips, off the event loop.
 */
export async function detectorCanvas(img: RgbImage, opts: CanvasOptions): Promise<DetectorCanvas> {
  const [detW, detH] = opts.detSize;
  const fit = Math.min(detW / img.width, detH / img.height);
  let scale = Math.min(1, fit);
  const longer = Math.max(img.width, img.height);
  if (opts.upscaleSmall && longer < SMALL_IMAGE_SIDE) scale = Math.min(fit, MAX_UPSCALE, SMALL_IMAGE_SIDE / longer);
  const w = Math.max(1, Math.min(detW, Math.round(img.width * scale)));
  const h = Math.max(1, Math.min(detH, Math.round(img.height * scale)));
  let pixels = img;
  if (w !== img.width || h !== img.height) {
    const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
      .resize(w, h, { fit: 'fill', kernel: 'linear' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    pixels = { data, width: info.width, height: info.height };
  }
  // The effective scale per axis differs from `scale` by rounding; use the mean of both.
  const effScale = (w / img.width + h / img.height) / 2;
  const pad = opts.edgePad ?? 0;
  const offsetX = Math.round(w * pad);
  const offsetY = Math.round(h * pad);
  return { pixels, scale: effScale, inputWidth: roundUp32(w + 2 * offsetX), inputHeight: roundUp32(h + 2 * offsetY), offsetX, offsetY };
}

export interface TensorLayout {
  /** Channel order the model wants. */
  order: 'rgb' | 'bgr';
  /** value = (pixel - mean) / std */
  mean: number;
  std: number;
}

/** NCHW float32 of the canvas; padding is a black pixel (insightface pastes onto a zero canvas). */
export function canvasTensor(c: DetectorCanvas, layout: TensorLayout): Float32Array {
  const { inputWidth: W, inputHeight: H } = c;
  const plane = W * H;
  const out = new Float32Array(3 * plane);
  if (W > c.pixels.width || H > c.pixels.height) out.fill((0 - layout.mean) / layout.std);
  const { offsetX, offsetY } = c;
  const { data, width, height } = c.pixels;
  // One table lookup per byte instead of a subtract and a multiply, and no fill where there
  // is no padding: 2.3 against 2.9 ms for a 640x480 canvas, on the event loop before every
  // detection.
  const table = new Float32Array(256);
  for (let v = 0; v < 256; v++) table[v] = (v - layout.mean) / layout.std;
  // RGB source: plane 0 gets R for 'rgb', B for 'bgr'.
  const c0 = layout.order === 'rgb' ? 0 : 2;
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
