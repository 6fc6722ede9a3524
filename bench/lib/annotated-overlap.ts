import { linearAssignment } from '../../src/modules/person/linear-assignment.js';
import { iouBox, type MotBox } from './mot-metrics.js';

/** Corners of a detector's box, in the frame's pixels. */
interface Corners {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Intersection over union of an annotated person and a detector's box. */
export function iou(g: MotBox, d: Corners): number {
  const iw = Math.min(g.x + g.w, d.x2) - Math.max(g.x, d.x1);
  const ih = Math.min(g.y + g.h, d.y2) - Math.max(g.y, d.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / (g.w * g.h + (d.x2 - d.x1) * (d.y2 - d.y1) - inter);
}

/** Fraction of g covered by the annotated people in front of it (box bottom lower), on a 16x16 grid. */
export function occlusion(g: MotBox, all: MotBox[]): number {
  const front = all.filter((o) => o !== g && o.y + o.h > g.y + g.h);
  if (!front.length) return 0;
  let covered = 0;
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 16; j++) {
      const x = g.x + ((i + 0.5) * g.w) / 16;
      const y = g.y + ((j + 0.5) * g.h) / 16;
      if (front.some((o) => x >= o.x && x < o.x + o.w && y >= o.y && y < o.y + o.h)) covered++;
    }
  }
  return covered / 256;
}

/**
 * Detections matched one to one to the annotated people of a frame (least total 1 - IoU, pairs
 * at IoU 0.5 or more), as [annotated index, detection index]; `scale` takes the detector's frame
 * pixels to the annotation's.
 */
export function matchAnnotated(truth: readonly MotBox[], dets: readonly Corners[], scale: number): [number, number][] {
  const cost = new Float64Array(truth.length * dets.length);
  for (let a = 0; a < truth.length; a++)
    for (let b = 0; b < dets.length; b++) {
      const d = dets[b]!;
      cost[a * dets.length + b] = 1 - iouBox(truth[a]!, { frame: 0, id: 0, x: d.x1 * scale, y: d.y1 * scale, w: (d.x2 - d.x1) * scale, h: (d.y2 - d.y1) * scale });
    }
  return linearAssignment(cost, truth.length, dets.length, 0.5).matches;
}
