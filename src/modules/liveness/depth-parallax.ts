import type { RgbImage } from '../../core/image-decode.js';
import { fitRigid, imagePlane, upperFace } from './rigid-pose.js';
import { luma } from '../../core/luma.js';

/**
 * Depth parallax on the face's centre line, measured in the image: the evidence of a turning
 * head that a 2-D edit of a photo does not give (issue 22).
 *
 * When a head turns by an angle, each point moves across the image by its depth times the sine
 * of that angle (plus a foreshortening term that is nearly equal for points on the centre line):
 * the nose tip, about a fifth of a face width in front of the bridge between the eyes, moves
 * that much further than the bridge. A photo squeezed about the nose, its inner face slid
 * sideways or the whole picture tilted moves both by the same amount, because both sit on the
 * same vertical line of a flat picture. The landmark model cannot be asked: it places its
 * points where a turned face's would be, whatever the pixels (its 2-D points of a squeezed photo
 * fit a rigid rotation as well as a real head's do). So the two points are followed in the
 * pixels: a patch around each in the frame the turn is measured from is found again in the
 * frame that reaches the angle (normalised cross-correlation), and the difference of their
 * displacements is compared with what the rotation fitted to the landmarks (rigid-pose.ts)
 * predicts for the landmarks' depth.
 */

/** A grey crop of a frame on a grid aligned to absolute image positions (multiples of `step`). */
export interface GreyPatch {
  data: Float32Array;
  w: number;
  h: number;
  /** Image position of grid cell (0, 0)'s top-left pixel. */
  x0: number;
  y0: number;
  /** Image pixels per grid cell (box-averaged), the same for the frames of one comparison. */
  step: number;
}

/** Grid cells per face-box width: fine enough to follow a nose, coarse enough to average noise. */
const CELLS_PER_FACE = 64;

/** The grid step for a face box: about CELLS_PER_FACE cells across the face. */
export function patchStep(bbox: readonly number[]): number {
  return Math.max(1, Math.floor((bbox[2]! - bbox[0]!) / CELLS_PER_FACE));
}

/** The face box grown by half a box each side, in grey, box-averaged over step x step pixels. */
export function greyPatch(img: RgbImage, bbox: readonly number[], step: number): GreyPatch {
  const [bx1, by1, bx2, by2] = bbox as [number, number, number, number];
  const mw = (bx2 - bx1) * 0.5;
  const mh = (by2 - by1) * 0.5;
  const x0 = Math.max(0, Math.floor((bx1 - mw) / step) * step);
  const y0 = Math.max(0, Math.floor((by1 - mh) / step) * step);
  const w = Math.max(0, Math.floor((Math.min(img.width, bx2 + mw) - x0) / step));
  const h = Math.max(0, Math.floor((Math.min(img.height, by2 + mh) - y0) / step));
  const data = new Float32Array(w * h);
  const src = img.data;
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      let sum = 0;
      for (let y = y0 + r * step; y < y0 + (r + 1) * step; y++) {
        let o = (y * img.width + x0 + c * step) * 3;
        for (let x = 0; x < step; x++, o += 3) sum += luma(src, o);
      }
      data[r * w + c] = sum / (step * step);
    }
  }
  return { data, w, h, x0, y0, step };
}

/** Grid coordinates of an image position. */
const toGrid = (p: GreyPatch, x: number, y: number): [number, number] => [(x + 0.5 - p.x0) / p.step - 0.5, (y + 0.5 - p.y0) / p.step - 0.5];

/** Normalised cross-correlation of the (2hs+1)^2 template at (tc, tr) in `a` with the window at (c, r) in `b`; -1 when out of bounds or flat. */
function ncc(a: GreyPatch, tc: number, tr: number, b: GreyPatch, c: number, r: number, hs: number): number {
  if (tc - hs < 0 || tr - hs < 0 || tc + hs >= a.w || tr + hs >= a.h) return -1;
  if (c - hs < 0 || r - hs < 0 || c + hs >= b.w || r + hs >= b.h) return -1;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  const n = (2 * hs + 1) ** 2;
  for (let dy = -hs; dy <= hs; dy++) {
    let ia = (tr + dy) * a.w + tc - hs;
    let ib = (r + dy) * b.w + c - hs;
    for (let dx = -hs; dx <= hs; dx++, ia++, ib++) {
      const va = a.data[ia]!;
      const vb = b.data[ib]!;
      sa += va;
      sb += vb;
      saa += va * va;
      sbb += vb * vb;
      sab += va * vb;
    }
  }
  const va = saa - (sa * sa) / n;
  const vb = sbb - (sb * sb) / n;
  if (va < 1e-6 * n || vb < 1e-6 * n) return -1;
  return (sab - (sa * sb) / n) / Math.sqrt(va * vb);
}

/** Offset of a parabola's peak through (-1, a), (0, b), (1, c), within +-0.5. */
const peak = (a: number, b: number, c: number) => {
  const d = a - 2 * b + c;
  return d < 0 ? Math.max(-0.5, Math.min(0.5, (a - c) / (2 * d))) : 0;
};

/**
 * Where the patch around image position `from` in `a` went in `b`: searched within `radius`
 * cells of `guess` (image position), refined to a fraction of a cell. Returns the image
 * displacement and the match's correlation, or null when nothing could be compared.
 */
export function follow(a: GreyPatch, from: [number, number], b: GreyPatch, guess: [number, number], half: number, radius: number): { dx: number; dy: number; score: number } | null {
  const [fc, fr] = toGrid(a, from[0], from[1]).map(Math.round) as [number, number];
  const [gc, gr] = toGrid(b, guess[0], guess[1]).map(Math.round) as [number, number];
  let best = -2;
  let bc = 0;
  let br = 0;
  const scores = new Map<number, number>();
  for (let r = gr - radius; r <= gr + radius; r++) {
    for (let c = gc - radius; c <= gc + radius; c++) {
      const s = ncc(a, fc, fr, b, c, r, half);
      scores.set(r * 100000 + c, s);
      if (s > best) {
        best = s;
        bc = c;
        br = r;
      }
    }
  }
  if (best <= -1) return null;
  const at = (c: number, r: number) => scores.get(r * 100000 + c) ?? ncc(a, fc, fr, b, c, r, half);
  const sx = peak(at(bc - 1, br), best, at(bc + 1, br));
  const sy = peak(at(bc, br - 1), best, at(bc, br + 1));
  // Both grids are aligned to absolute positions with the same step: cells map to pixels directly.
  const dx = (bc + sx - fc) * a.step + (b.x0 - a.x0);
  const dy = (br + sy - fr) * a.step + (b.y0 - a.y0);
  return { dx, dy, score: best };
}

/** MediaPipe face-mesh indices: the nose tip (in front) and the bridge between the eyes (behind it); the outer eye corners. */
const NOSE_TIP = 4;
const NASION = 168;
const EYE_OUTER_A = 33;
const EYE_OUTER_B = 263;

/** Template half-size and search radius around the landmark model's guess, in eye distances (outer corner to outer corner). */
const TEMPLATE = 0.12;
const SEARCH = 0.2;

/**
 * Least fraction of the predicted parallax a turn's completing frame must show. Set on frame
 * pairs (bench/eval-head-rigidity.ts, docs/accuracy.md): genuine turns of the clips show a
 * median 0.4-1.0 with a few pairs near 0 (small faces, where a nose is a handful of pixels);
 * the suite's flat edits a median near 0 with a tail to 1 on the most grotesque squeezes.
 */
export const PARALLAX = { minObserved: 0.25 } as const;

export interface Parallax {
  /**
   * Fraction of the depth parallax a rigid head would show that the pixels showed, beyond what
   * the same rotation of a flat picture would show: about 1 for a real head, about 0 for a photo
   * physically turned or tilted.
   */
  observed: number;
  /**
   * The same fraction measured from no relative motion at all: about 1 for a real head, about 0
   * for a photo edited in the plane (the nose tip moved with the bridge). For a turn the flat
   * rotation hardly moves the tip against the bridge (the centre line lies along the turn's
   * axis), so this reads as `observed` does; for a nod it foreshortens the centre line along the
   * very direction the depth moves it, so the two differ and a look must clear both.
   */
  still: number;
  /** The parallax a rigid head would show, in eye distances. */
  expected: number;
  /** The lower of the two matches' correlations. */
  score: number;
}

/**
 * How much of the depth parallax that the fitted head rotation predicts between a reference
 * frame and the current one the pixels show. `fit` is the rigid fit of the reference's 3-D
 * landmarks to the current frame's (rigid-pose.ts): how the head turned, by the landmark
 * model's account. Under that rotation the vector from the bridge to the nose tip moves in the
 * image as a 3-D vector (its depth included) would; were the face a picture, it would move as
 * its flat part alone. The measured motion (the nose tip's patch displacement minus the
 * bridge's) is projected on the difference of the two predictions. Points are 478 x (x, y, z)
 * in image pixels (face-measurer.ts). Null when a patch falls outside the crops.
 */
export function centreLineParallax(refPatch: GreyPatch, ref: Float32Array, curPatch: GreyPatch, cur: Float32Array, fit: { rotation: readonly (readonly number[])[]; scale: number }): Parallax | null {
  const at = (p: Float32Array, i: number): [number, number] => [p[i * 3]!, p[i * 3 + 1]!];
  const [ax, ay] = at(ref, EYE_OUTER_A);
  const [bx, by] = at(ref, EYE_OUTER_B);
  const eyes = Math.max(1e-6, Math.hypot(bx - ax, by - ay));
  const half = Math.max(2, Math.round((TEMPLATE * eyes) / refPatch.step));
  const radius = Math.max(2, Math.round((SEARCH * eyes) / refPatch.step));
  const tip = follow(refPatch, at(ref, NOSE_TIP), curPatch, at(cur, NOSE_TIP), half, radius);
  const bridge = follow(refPatch, at(ref, NASION), curPatch, at(cur, NASION), half, radius);
  if (!tip || !bridge) return null;
  const R = fit.rotation;
  const s = fit.scale;
  const v = [0, 1, 2].map((k) => ref[NOSE_TIP * 3 + k]! - ref[NASION * 3 + k]!) as [number, number, number];
  // Flat prediction: the vector's image part rotated and scaled, its depth left out.
  const fx = s * (R[0]![0]! * v[0] + R[0]![1]! * v[1]) - v[0];
  const fy = s * (R[1]![0]! * v[0] + R[1]![1]! * v[1]) - v[1];
  // What its depth adds under the same rotation.
  const ex = s * R[0]![2]! * v[2];
  const ey = s * R[1]![2]! * v[2];
  const den = ex * ex + ey * ey;
  const mx = tip.dx - bridge.dx;
  const my = tip.dy - bridge.dy;
  const observed = ((mx - fx) * ex + (my - fy) * ey) / Math.max(1e-9, den);
  const still = (mx * ex + my * ey) / Math.max(1e-9, den);
  return { observed, still, expected: Math.sqrt(den) / eyes, score: Math.min(tip.score, bridge.score) };
}

/** A frame as the parallax check keeps it: its grey face crop and its 3-D landmarks in image pixels. */
export interface FaceView {
  patch: GreyPatch;
  points: Float32Array;
}

/**
 * The fraction of the predicted parallax a frame showed, as the check reads it for a movement
 * about `axis`: for a turn (yaw) against a flat picture turned alike; for a look (pitch) against
 * both a flat picture tilted alike and one edited in the plane, the lower of the two (see
 * Parallax.still). Null when the patches could not be compared.
 */
export function parallaxFraction(p: Parallax | null, axis: 'yaw' | 'pitch'): number | null {
  if (!p) return null;
  return axis === 'yaw' ? p.observed : Math.min(p.observed, p.still);
}

/**
 * Whether `cur` shows the depth parallax of a head turned (yaw) or nodded (pitch) from `ref` as
 * the landmarks say: the landmarks' rigid fit gives the rotation, the pixels must show at least
 * PARALLAX.minObserved of the parallax it predicts (parallaxFraction). When the head nods, the
 * nose tip, in front of the bridge, moves up or down the image further than the bridge does, as
 * it moves sideways further when the head turns. Both views must be cropped with the same step.
 */
export function showsParallax(ref: FaceView, cur: FaceView, axis: 'yaw' | 'pitch'): boolean {
  const fit = fitRigid(ref.points, imagePlane(cur.points), upperFace(ref.points));
  const f = parallaxFraction(centreLineParallax(ref.patch, ref.points, cur.patch, cur.points, fit), axis);
  return f !== null && f >= PARALLAX.minObserved;
}
