import type { RgbImage } from '../../core/image-decode.js';
import type { WorkerModel } from '../../runtime/inference-worker.js';
import { canvasFeed, detectorCanvas, type TensorLayout } from './detector-input.js';
import { nms, type RawFace } from './face-geometry.js';
import { decodeScrfd, SCRFD_LAYOUT } from './scrfd-decoder.js';
import { decodeYunet, YUNET_LAYOUT } from './yunet-decoder.js';

export type DetectorKind = 'scrfd' | 'yunet';

/** insightface's NMS IoU for SCRFD; OpenCV's FaceDetectorYN default is 0.3, 0.4 works for both here. */
const NMS_IOU = 0.4;
/**
 * A face filling most of a large image is too big for the detector's anchors once the
 * image is fitted to 640 (a 1024x1024 portrait: no face at 640, found at 160-480). When
 * the first pass finds nothing, the image is tried once more fitted to this side.
 */
export const FALLBACK_SIDE = 320;

export interface DetectOptions {
  detSize: readonly [number, number];
  thresh: number;
  upscaleSmall?: boolean;
  /** Black margin around the image, a fraction of each side (detectorCanvas's edgePad). */
  edgePad?: number;
}

export interface DetectTimings {
  /** resize */
  prep_ms: number;
  /** the run in the pool: the input's fill in the worker, session.run and the hand-overs */
  model_ms: number;
}

/** One face detector session with its preprocessing and decoding. */
export class FaceDetector {
  private readonly layout: TensorLayout;

  constructor(
    private readonly model: WorkerModel,
    readonly kind: DetectorKind,
  ) {
    this.layout = kind === 'scrfd' ? SCRFD_LAYOUT : YUNET_LAYOUT;
  }

  /** Faces in original-image coordinates after NMS, highest score first. */
  async detect(img: RgbImage, opts: DetectOptions, timings?: DetectTimings): Promise<RawFace[]> {
    const first = await this.detectAt(img, opts.detSize, opts, timings);
    if (first.faces.length > 0 || first.longerInput <= FALLBACK_SIDE) return first.faces;
    return (await this.detectAt(img, [FALLBACK_SIDE, FALLBACK_SIDE], { ...opts, upscaleSmall: false }, timings)).faces;
  }

  private async detectAt(img: RgbImage, detSize: readonly [number, number], opts: DetectOptions, timings?: DetectTimings): Promise<{ faces: RawFace[]; longerInput: number }> {
    const t0 = performance.now();
    const canvas = await detectorCanvas(img, { detSize, upscaleSmall: opts.upscaleSmall, edgePad: opts.edgePad });
    const model = this.model;
    const t1 = performance.now();
    // The worker fills the float input from the canvas's bytes (image-feed.ts); a resized
    // canvas is the detector's alone and is handed over, the decoded image itself is copied.
    const outputs = await model.runImage(canvasFeed(canvas, this.layout, model.inputNames[0]!), canvas.pixels !== img);
    const t2 = performance.now();
    const raw =
      this.kind === 'scrfd'
        ? decodeScrfd(outputs, model.outputNames, canvas.inputWidth, canvas.inputHeight, canvas.scale, opts.thresh)
        : decodeYunet(outputs, canvas.inputWidth, canvas.inputHeight, canvas.scale, opts.thresh);
    if (timings) {
      timings.prep_ms += t1 - t0;
      timings.model_ms += t2 - t1;
    }
    const faces = nms(raw, NMS_IOU).map((f) => clipToImage(unshift(f, canvas.offsetX / canvas.scale, canvas.offsetY / canvas.scale), img.width, img.height));
    return { faces, longerInput: Math.max(canvas.inputWidth, canvas.inputHeight) };
  }
}

/** Canvas coordinates (already divided by the scale) back to the image's when it sat at an offset. */
function unshift(f: RawFace, dx: number, dy: number): RawFace {
  if (dx === 0 && dy === 0) return f;
  const [x1, y1, x2, y2] = f.box;
  return { ...f, box: [x1 - dx, y1 - dy, x2 - dx, y2 - dy], kps: f.kps.map(([x, y]) => [x - dx, y - dy] as [number, number]) };
}

/** Boxes may overhang the image (a face cut at the edge); clip them, keep landmarks as predicted. */
function clipToImage(f: RawFace, w: number, h: number): RawFace {
  const [x1, y1, x2, y2] = f.box;
  return { ...f, box: [Math.max(0, x1), Math.max(0, y1), Math.min(w, x2), Math.min(h, y2)] };
}
