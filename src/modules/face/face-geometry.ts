/** Geometry shared by the face detectors: raw detections, IoU and non-maximum suppression. */

export type Point = [number, number];
export type Box = [number, number, number, number];

/** A decoded detector output in the original (upright) image's pixel coordinates. */
export interface RawFace {
  box: Box;
  score: number;
  /** left eye, right eye (as seen in the image), nose, mouth left, mouth right. */
  kps: Point[];
}

export function boxArea(b: Box): number {
  return Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);
}

export function iou(a: Box, b: Box): number {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (boxArea(a) + boxArea(b) - inter);
}

/** Greedy NMS by score (insightface's order): keeps a face unless a higher-scored kept one overlaps it past `iouThresh`. */
export function nms(faces: RawFace[], iouThresh: number): RawFace[] {
  const sorted = [...faces].sort((a, b) => b.score - a.score);
  const kept: RawFace[] = [];
  for (const f of sorted) {
    if (kept.every((k) => iou(k.box, f.box) <= iouThresh)) kept.push(f);
  }
  return kept;
}

/**
 * Face size in pixels: the geometric mean of the box sides, sqrt(w*h). Ordering by it is
 * ordering by box area, so "largest first" and face_size always agree.
 */
export function faceSize(b: Box): number {
  return Math.sqrt(boxArea(b));
}
