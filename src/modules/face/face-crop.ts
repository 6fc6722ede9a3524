// Square face crops for the attribute models (age/gender): a square around the detector box,
// enlarged by a factor, optionally turned so the eyes are level, sampled with the face module's
// bilinear warp (the one alignment uses; bench/eval-demographics.ts measured it as accurate as
// an antialiased libvips crop on the identity photos, and cheaper).
import type { RgbImage } from '../../core/image-decode.js';
import { warpAffine } from './face-align.js';
import type { Box, Point } from './face-geometry.js';

/** A square region of the image: centre, side in pixels, roll in radians (the eyes' angle). */
export interface FaceRegion {
  cx: number;
  cy: number;
  side: number;
  angle: number;
}

/** The square around `box` enlarged `scale` times; the roll comes from the eye landmarks when `level` is set. */
export function faceRegion(box: Box, kps: readonly Point[] | undefined, scale: number, level: boolean): FaceRegion {
  const [x1, y1, x2, y2] = box;
  const side = Math.max(x2 - x1, y2 - y1, 1) * scale;
  const [le, re] = kps ?? [];
  const angle = level && le && re ? Math.atan2(re[1] - le[1], re[0] - le[0]) : 0;
  return { cx: (x1 + x2) / 2, cy: (y1 + y2) / 2, side, angle };
}

/** The region as a `size` x `size` RGB crop (row-major bytes), black outside the image. */
export function cropRegion(img: RgbImage, region: FaceRegion, size: number): Buffer {
  const { cx, cy, side, angle } = region;
  const k = side / size;
  const cos = k * Math.cos(angle);
  const sin = k * Math.sin(angle);
  // Output pixel centre (u + 0.5, v + 0.5) maps to centre + R(angle) * k * (offset from the middle);
  // warpAffine addresses source pixels by index, hence the -0.5.
  const o = 0.5 - size / 2;
  const inv: [number, number, number, number, number, number] = [cos, -sin, cx - 0.5 + cos * o - sin * o, sin, cos, cy - 0.5 + sin * o + cos * o];
  return warpAffine(img, inv, size, size).data;
}
