import type { RgbImage } from '../../core/image-decode.js';
import { luma } from '../../core/luma.js';

/**
 * Evidence that a session's frames come from one continuous camera capture rather than from
 * edits of a still photo. A camera never delivers the same pixels twice: sensor noise (and a
 * video codec's noise) changes nearly every pixel of a face between two frames, while an edit
 * of one photo leaves everything it did not touch bit-identical to the photo. A camera also
 * does not change its resolution, and the background behind a person stays put.
 */

/** Samples per side at most over the face region (the grid is coarsened for larger faces). */
const GRID = 96;
/** Thumbnail of the whole frame for the background comparison. */
const THUMB = 16;

export interface FrameSample {
  width: number;
  height: number;
  /** Grid step in pixels (the same for every frame of a session: set by the first). */
  stride: number;
  /** Sampled region, in grid cells: columns x rows from (x0, y0) (multiples of stride). */
  x0: number;
  y0: number;
  cols: number;
  rows: number;
  /** RGB of every grid point in the region. */
  rgb: Uint8Array;
  /** Mean grey of each THUMB x THUMB cell of the frame. */
  thumb: Float32Array;
  /** The face box (with a margin) the thumbnail comparison leaves out. */
  face: [number, number, number, number];
  /** The detector's face box. */
  box: [number, number, number, number];
}

export type CaptureProblem = 'static_image' | 'capture_discontinuity';

export interface CaptureSettings {
  /** Largest fraction of the face region's grid points bit-identical to an earlier frame. */
  maxIdentical: number;
  /** Largest mean grey difference (0-255) of the background thumbnail cells between consecutive frames. */
  maxBackgroundChange: number;
  /** Largest identical fraction between a turn's or look's completing frame and its baseline frame. */
  maxIdenticalToBaseline: number;
}

/**
 * Measured on the genuine clips re-encoded as JPEG q90 (docs/accuracy.md, "Active liveness
 * against still-photo attacks"): decoded H.264 copies unchanged blocks, so consecutive genuine frames share up
 * to 100 % of the face region (duplicated frames), frames ~100 ms apart up to 45 %; background
 * cells moved at most 22 grey levels. A local edit of a photo leaves 60-100 % untouched; a face
 * squeezed about the nose inside its outline 39-45 %, where a genuine turn of the clip, frames
 * ~100 ms apart, shares at most 10 % (the turn's frames are hundreds of ms apart).
 */
export const CAPTURE: CaptureSettings = { maxIdentical: 0.6, maxBackgroundChange: 45, maxIdenticalToBaseline: 0.3 };

/** The face region (face box grown by a quarter each side), sampled on a grid aligned to `stride`. */
export function sampleFrame(img: RgbImage, bbox: [number, number, number, number], stride?: number): FrameSample {
  const [bx1, by1, bx2, by2] = bbox;
  const mw = (bx2 - bx1) * 0.25;
  const mh = (by2 - by1) * 0.25;
  const fx1 = Math.max(0, bx1 - mw);
  const fy1 = Math.max(0, by1 - mh);
  const fx2 = Math.min(img.width - 1, bx2 + mw);
  const fy2 = Math.min(img.height - 1, by2 + mh);
  const step = stride ?? Math.max(1, Math.ceil(Math.max(fx2 - fx1, fy2 - fy1) / GRID));
  const x0 = Math.ceil(fx1 / step) * step;
  const y0 = Math.ceil(fy1 / step) * step;
  const cols = Math.max(0, Math.floor((fx2 - x0) / step) + 1);
  const rows = Math.max(0, Math.floor((fy2 - y0) / step) + 1);
  const rgb = new Uint8Array(cols * rows * 3);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const o = ((y0 + r * step) * img.width + (x0 + c * step)) * 3;
      const k = (r * cols + c) * 3;
      rgb[k] = img.data[o]!;
      rgb[k + 1] = img.data[o + 1]!;
      rgb[k + 2] = img.data[o + 2]!;
    }
  }
  return { width: img.width, height: img.height, stride: step, x0, y0, cols, rows, rgb, thumb: thumbnail(img), face: [fx1, fy1, fx2, fy2], box: bbox };
}

function thumbnail(img: RgbImage): Float32Array {
  const out = new Float32Array(THUMB * THUMB);
  const count = new Float32Array(THUMB * THUMB);
  // Every 4th pixel each way is plenty for cell means.
  for (let y = 0; y < img.height; y += 4) {
    const cy = Math.min(THUMB - 1, Math.floor((y * THUMB) / img.height));
    for (let x = 0; x < img.width; x += 4) {
      const cx = Math.min(THUMB - 1, Math.floor((x * THUMB) / img.width));
      const o = (y * img.width + x) * 3;
      out[cy * THUMB + cx]! += luma(img.data, o);
      count[cy * THUMB + cx]! += 1;
    }
  }
  for (let i = 0; i < out.length; i++) out[i] = out[i]! / Math.max(1, count[i]!);
  return out;
}

/** Fraction of `a`'s grid points that `b` also sampled and that are bit-identical there. */
export function identicalFraction(a: FrameSample, b: FrameSample): number {
  if (a.stride !== b.stride || a.width !== b.width || a.height !== b.height || a.cols * a.rows === 0) return 0;
  let same = 0;
  for (let r = 0; r < a.rows; r++) {
    const br = (a.y0 - b.y0) / a.stride + r;
    if (br < 0 || br >= b.rows) continue;
    for (let c = 0; c < a.cols; c++) {
      const bc = (a.x0 - b.x0) / a.stride + c;
      if (bc < 0 || bc >= b.cols) continue;
      const ka = (r * a.cols + c) * 3;
      const kb = (br * b.cols + bc) * 3;
      if (a.rgb[ka] === b.rgb[kb] && a.rgb[ka + 1] === b.rgb[kb + 1] && a.rgb[ka + 2] === b.rgb[kb + 2]) same++;
    }
  }
  return same / (a.cols * a.rows);
}

/** Mean absolute grey change of the thumbnail cells outside both frames' face regions, or 0 when too few are left. */
export function backgroundChange(a: FrameSample, b: FrameSample): number {
  let sum = 0;
  let n = 0;
  const inFace = (f: [number, number, number, number], cx: number, cy: number, w: number, h: number) => {
    const x1 = (cx * w) / THUMB;
    const y1 = (cy * h) / THUMB;
    return x1 + w / THUMB > f[0] && x1 < f[2] && y1 + h / THUMB > f[1] && y1 < f[3];
  };
  for (let cy = 0; cy < THUMB; cy++) {
    for (let cx = 0; cx < THUMB; cx++) {
      if (inFace(a.face, cx, cy, a.width, a.height) || inFace(b.face, cx, cy, b.width, b.height)) continue;
      sum += Math.abs(a.thumb[cy * THUMB + cx]! - b.thumb[cy * THUMB + cx]!);
      n++;
    }
  }
  return n >= THUMB * 2 ? sum / n : 0;
}

/**
 * Whether `b` is the left-right mirror image of `a` (thumbnails): much closer to the mirrored
 * thumbnail than to the plain one, and clearly different from the plain one. A camera does not
 * flip its picture mid-capture; a mirrored photo reads to the landmark model as the opposite turn
 * (the `mirror` species of issue 22). Consecutive genuine frames differ by a few grey levels
 * plainly, so a real scene never looks mirrored.
 */
export function mirroredOf(a: FrameSample, b: FrameSample): boolean {
  let plain = 0;
  let flipped = 0;
  for (let y = 0; y < THUMB; y++) {
    for (let x = 0; x < THUMB; x++) {
      const v = b.thumb[y * THUMB + x]!;
      plain += Math.abs(v - a.thumb[y * THUMB + x]!);
      flipped += Math.abs(v - a.thumb[y * THUMB + (THUMB - 1 - x)]!);
    }
  }
  const n = THUMB * THUMB;
  return plain / n >= 4 && flipped < 0.5 * plain;
}

/**
 * Checks a frame against the session's earlier frames (most recent last): a resolution change,
 * a mirrored picture or a background that jumps is a broken capture; a face region largely
 * bit-identical to an earlier frame is a still image.
 */
export function captureProblem(frame: FrameSample, earlier: FrameSample[], settings: CaptureSettings = CAPTURE): CaptureProblem | null {
  const prev = earlier[earlier.length - 1];
  if (!prev) return null;
  if (prev.width !== frame.width || prev.height !== frame.height) return 'capture_discontinuity';
  if (mirroredOf(prev, frame)) return 'capture_discontinuity';
  if (backgroundChange(frame, prev) > settings.maxBackgroundChange) return 'capture_discontinuity';
  for (const e of earlier) if (identicalFraction(frame, e) > settings.maxIdentical) return 'static_image';
  return null;
}
