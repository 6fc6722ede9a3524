import type { WorkerModel } from '../../runtime/inference-worker.js';
import type { ImageFeed, Rgb } from '../../runtime/image-feed.js';
import { sharpFromRgb, type RgbImage } from '../../core/image-decode.js';
import { clampQuad, orderQuad, scaleQuad, type Quad } from './geometry.js';
import type { CV } from './opencv.js';

export interface TextBox {
  quad: Quad;
  /** Mean text probability inside the box (DB "fast" box score). */
  score: number;
}

export interface DetectOptions {
  /** Longest detector input side; the image is never enlarged past `minSide` for its shorter side. */
  maxSide: number;
  /** Small images are enlarged until their longer side reaches this (text a few pixels high is missed otherwise). */
  minLongSide?: number;
}

/** DB post-processing constants of PaddleOCR's PP-OCRv4 inference defaults. */
const DB = { thresh: 0.3, boxThresh: 0.6, unclipRatio: 1.5, minSize: 3, maxCandidates: 1000 };

/**
 * ImageNet statistics as PaddleOCR applies them to cv2's B, G, R planes, (byte / 255 - mean) /
 * std with the first mean and std on blue, written as an ImageFeed's (byte - 255 mean) /
 * (255 std) in R, G, B order: the same float32 for every byte and channel.
 */
const MEAN: Rgb = [0.406 * 255, 0.456 * 255, 0.485 * 255];
const STD: Rgb = [0.225 * 255, 0.224 * 255, 0.229 * 255];

/**
 * The detector's input, filled in the inference worker from the resized page's bytes (B, G, R
 * planes, as PaddleOCR feeds cv2's BGR frames): a 960x640 page is 7.4 MB of floats that were
 * allocated and filled on the event loop for every pass, against 1.8 MB of bytes handed over.
 */
export function detectorFeed(name: string, rgb: Uint8Array, w: number, h: number): ImageFeed {
  return { name, rgb, width: w, height: h, dims: [1, 3, h, w], offsetX: 0, offsetY: 0, order: 'bgr', mean: MEAN, std: STD };
}

/** Detector input size: longer side within [minLongSide, maxSide], both sides multiples of 32. */
export function detInputSize(width: number, height: number, opts: DetectOptions): { w: number; h: number } {
  const long = Math.max(width, height);
  let ratio = 1;
  if (long > opts.maxSide) ratio = opts.maxSide / long;
  else if (opts.minLongSide && long < opts.minLongSide) ratio = opts.minLongSide / long;
  const round32 = (v: number) => Math.max(32, Math.round((v * ratio) / 32) * 32);
  return { w: round32(width), h: round32(height) };
}

/**
 * PP-OCRv4 text detection: the DB network gives a text-probability map; boxes are
 * its thresholded regions, each turned into a min-area rectangle, scored, grown by
 * the "unclip" offset (DB shrinks text regions in training) and scaled back.
 */
export class TextDetector {
  constructor(
    private readonly model: WorkerModel,
    private readonly cv: CV,
  ) {}

  async detect(img: RgbImage, opts: DetectOptions): Promise<TextBox[]> {
    const { w, h } = detInputSize(img.width, img.height, opts);
    const resized = await sharpFromRgb(img).resize(w, h, { fit: 'fill', kernel: 'linear' }).raw().toBuffer();
    // The resized bytes are this call's own: handed to the worker, not copied.
    const out = await this.model.runImage(detectorFeed(this.model.inputNames[0]!, resized, w, h), true);
    const prob = out[this.model.outputNames[0]!]!.data as Float32Array;
    return this.boxesFromMap(prob, w, h, img.width / w, img.height / h, img.width, img.height);
  }

  /** DB post-processing (binarise, contours, min-area rect, score, unclip, rect again). */
  boxesFromMap(prob: Float32Array, w: number, h: number, sx: number, sy: number, imgW: number, imgH: number): TextBox[] {
    const cv = this.cv;
    const bitmap = new cv.Mat(h, w, cv.CV_8UC1);
    const probMat = new cv.Mat(h, w, cv.CV_32FC1);
    const contours = new cv.MatVector();
    const hierarchy = new cv.Mat();
    const boxes: TextBox[] = [];
    try {
      const bits = bitmap.data;
      for (let i = 0; i < prob.length; i++) bits[i] = prob[i]! > DB.thresh ? 255 : 0;
      probMat.data32F.set(prob);
      cv.findContours(bitmap, contours, hierarchy, cv.RETR_LIST, cv.CHAIN_APPROX_SIMPLE);
      const n = Math.min(contours.size(), DB.maxCandidates);
      for (let i = 0; i < n; i++) {
        const contour = contours.get(i);
        try {
          const rect = cv.minAreaRect(contour);
          if (Math.min(rect.size.width, rect.size.height) < DB.minSize) continue;
          const quad = orderQuad(cv.boxPoints(rect));
          const score = this.boxScore(probMat, quad, w, h);
          if (score < DB.boxThresh) continue;
          // Offsetting a rectangle by d and taking the min-area rectangle again grows
          // each side by 2d, with d = area * ratio / perimeter as in pyclipper's unclip.
          const rw = rect.size.width;
          const rh = rect.size.height;
          const d = (rw * rh * DB.unclipRatio) / (2 * (rw + rh));
          const grown = { center: rect.center, size: { width: rw + 2 * d, height: rh + 2 * d }, angle: rect.angle };
          if (Math.min(grown.size.width, grown.size.height) < DB.minSize + 2) continue;
          const big = orderQuad(cv.boxPoints(grown));
          boxes.push({ quad: clampQuad(scaleQuad(big, sx, sy), imgW, imgH), score });
        } finally {
          contour.delete();
        }
      }
    } finally {
      bitmap.delete();
      probMat.delete();
      contours.delete();
      hierarchy.delete();
    }
    return boxes;
  }

  /** Mean probability inside the quad, over its bounding box (PaddleOCR's box_score_fast). */
  private boxScore(probMat: InstanceType<CV['Mat']>, quad: Quad, w: number, h: number): number {
    const cv = this.cv;
    const xmin = Math.max(0, Math.min(w - 1, Math.floor(Math.min(...quad.map((p) => p.x)))));
    const xmax = Math.max(0, Math.min(w - 1, Math.ceil(Math.max(...quad.map((p) => p.x)))));
    const ymin = Math.max(0, Math.min(h - 1, Math.floor(Math.min(...quad.map((p) => p.y)))));
    const ymax = Math.max(0, Math.min(h - 1, Math.ceil(Math.max(...quad.map((p) => p.y)))));
    const bw = xmax - xmin + 1;
    const bh = ymax - ymin + 1;
    const mask = cv.Mat.zeros(bh, bw, cv.CV_8UC1);
    const pts = cv.matFromArray(
      4,
      1,
      cv.CV_32SC2,
      quad.flatMap((p) => [Math.round(p.x - xmin), Math.round(p.y - ymin)]),
    );
    const polys = new cv.MatVector();
    const roi = probMat.roi(new cv.Rect(xmin, ymin, bw, bh));
    try {
      polys.push_back(pts);
      cv.fillPoly(mask, polys, new cv.Scalar(1));
      return cv.mean(roi, mask)[0] ?? 0;
    } finally {
      mask.delete();
      pts.delete();
      polys.delete();
      roi.delete();
    }
  }
}
