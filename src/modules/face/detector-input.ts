import sharp from 'sharp';
import type { RgbImage } from '../../core/image-decode.js';
import { fillImageTensor, imageFeedSize, type ImageFeed } from '../../runtime/image-feed.js';

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

/** The canvas as the detector's input, filled in the inference worker (image-feed.ts). */
export function canvasFeed(c: DetectorCanvas, layout: TensorLayout, name: string): ImageFeed {
  const { data, width, height } = c.pixels;
  return { name, rgb: data, width, height, dims: [1, 3, c.inputHeight, c.inputWidth], offsetX: c.offsetX, offsetY: c.offsetY, ...layout };
}

/** NCHW float32 of the canvas, as the worker fills it from canvasFeed; padding is a black pixel (insightface pastes onto a zero canvas). */
export function canvasTensor(c: DetectorCanvas, layout: TensorLayout): Float32Array {
  const feed = canvasFeed(c, layout, 'input');
  return fillImageTensor(feed, new Float32Array(imageFeedSize(feed)));
}
