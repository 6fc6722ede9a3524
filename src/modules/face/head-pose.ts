import type { Point } from './face-geometry.js';

/** Approximate head pose in degrees from the five landmarks (no 3-D model). */
export interface HeadPose {
  yaw: number;
  pitch: number;
  roll: number;
}

/**
 * Nose-tip displacement relative to the eye/mouth frame, the geometry insightface-style
 * pipelines use when only 5 points exist. In the face's own frame (roll removed):
 * - yaw: horizontal offset of the nose from the midline between the eye and mouth centres,
 *   in units of the eye distance; a nose protruding ~0.5 eye distances gives
 *   offset = 0.5 * tan(yaw) for a turned head, so yaw = atan(offset / 0.5).
 * - pitch: where the nose sits between the eye line and the mouth line. The detectors put it
 *   0.6 of the way down on the shared set's faces (median of 85, mostly frontal portraits;
 *   the ArcFace template's 0.494 read as 15-25 degrees of pitch on frontal faces); deviation over the same lever gives pitch = atan(dev / 0.5), positive = down.
 * A coarse estimate (no 3-D model): fit for "frontal enough to recognise", not for measuring.
 */
const NEUTRAL_NOSE_RATIO = 0.6;

export function headPose(kps: readonly Point[]): HeadPose {
  const [le, re, nose, ml, mr] = kps as [Point, Point, Point, Point, Point];
  const roll = Math.atan2(re[1] - le[1], re[0] - le[0]);
  const cos = Math.cos(-roll),
    sin = Math.sin(-roll);
  const rot = (p: Point): Point => [p[0] * cos - p[1] * sin, p[0] * sin + p[1] * cos];
  const [L, R, N, A, B] = [rot(le), rot(re), rot(nose), rot(ml), rot(mr)];
  const eyeDist = Math.max(1e-6, Math.hypot(R[0] - L[0], R[1] - L[1]));
  const eyeMid: Point = [(L[0] + R[0]) / 2, (L[1] + R[1]) / 2];
  const mouthMid: Point = [(A[0] + B[0]) / 2, (A[1] + B[1]) / 2];
  const midX = (eyeMid[0] + mouthMid[0]) / 2;
  const yaw = Math.atan((N[0] - midX) / eyeDist / 0.5);
  const span = Math.max(1e-6, mouthMid[1] - eyeMid[1]);
  const down = (N[1] - eyeMid[1]) / span;
  const pitch = Math.atan(((down - NEUTRAL_NOSE_RATIO) * span) / eyeDist / 0.5);
  const deg = (r: number) => (r * 180) / Math.PI;
  return { yaw: deg(yaw), pitch: deg(pitch), roll: deg(roll) };
}
