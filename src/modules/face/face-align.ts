import type { RgbImage } from '../../core/image-decode.js';
import type { Point } from './face-geometry.js';

/** The ArcFace 112x112 five-point template (insightface arcface_dst). */
export const ARCFACE_TEMPLATE: readonly Point[] = [
  [38.2946, 51.6963],
  [73.5318, 51.5014],
  [56.0252, 71.7366],
  [41.5493, 92.3655],
  [70.7299, 92.2041],
];
export const ALIGNED_SIZE = 112;

/**
 * dlib's 150x150 face chip (get_face_chip_details(shape, 150, 0.25), the input of its ResNet
 * recognizer), as the same five points: eye centres (mean of each 6-point eye contour), nose
 * tip (point 30), mouth corners (48, 54) of dlib's mean face shape, mapped by
 * (0.25 + m) / 1.5 * 150.
 */
export const DLIB_CHIP_TEMPLATE: readonly Point[] = [
  [47.5492, 46.599],
  [100.4761, 46.599],
  [74.0127, 76.5625],
  [50.4149, 103.0233],
  [97.6104, 103.0233],
];
export const DLIB_CHIP_SIZE = 150;

/** 2x3 affine [a, b, tx, c, d, ty]: x' = a x + b y + tx, y' = c x + d y + ty. */
export type Affine = [number, number, number, number, number, number];

/**
 * Least-squares similarity transform (rotation, uniform scale, translation) taking `src`
 * onto `dst`: the same solution as insightface's skimage SimilarityTransform/Umeyama,
 * written with complex numbers: a = sum(dst_c * conj(src_c)) / sum(|src_c|^2).
 */
export function estimateSimilarity(src: readonly Point[], dst: readonly Point[]): Affine {
  const n = Math.min(src.length, dst.length);
  let sx = 0,
    sy = 0,
    dx = 0,
    dy = 0;
  for (let i = 0; i < n; i++) {
    sx += src[i]![0];
    sy += src[i]![1];
    dx += dst[i]![0];
    dy += dst[i]![1];
  }
  sx /= n;
  sy /= n;
  dx /= n;
  dy /= n;
  let re = 0,
    im = 0,
    norm = 0;
  for (let i = 0; i < n; i++) {
    const ux = src[i]![0] - sx,
      uy = src[i]![1] - sy;
    const vx = dst[i]![0] - dx,
      vy = dst[i]![1] - dy;
    re += vx * ux + vy * uy;
    im += vy * ux - vx * uy;
    norm += ux * ux + uy * uy;
  }
  const a = norm > 0 ? re / norm : 1;
  const b = norm > 0 ? im / norm : 0;
  return [a, -b, dx - (a * sx - b * sy), b, a, dy - (b * sx + a * sy)];
}

export function invertAffine(m: Affine): Affine {
  const [a, b, tx, c, d, ty] = m;
  const det = a * d - b * c;
  if (Math.abs(det) < 1e-12) throw new Error('singular affine transform');
  const ia = d / det,
    ib = -b / det,
    ic = -c / det,
    id = a / det;
  return [ia, ib, -(ia * tx + ib * ty), ic, id, -(ic * tx + id * ty)];
}

/**
 * Bilinear sampler: output pixel (u, v) reads the source at inv(u, v), black outside
 * (cv2.warpAffine's BORDER_CONSTANT 0). 112x112 or 80x80 outputs cost well under a
 * millisecond in JS, cheaper than a libvips round trip.
 */
export function warpAffine(img: RgbImage, inv: Affine, outW: number, outH: number): RgbImage {
  const out = Buffer.alloc(outW * outH * 3);
  const { data, width: W, height: H } = img;
  const [a, b, tx, c, d, ty] = inv;
  let o = 0;
  for (let v = 0; v < outH; v++) {
    for (let u = 0; u < outW; u++, o += 3) {
      const x = a * u + b * v + tx;
      const y = c * u + d * v + ty;
      const x0 = Math.floor(x),
        y0 = Math.floor(y);
      if (x0 < -1 || y0 < -1 || x0 >= W || y0 >= H) continue;
      const fx = x - x0,
        fy = y - y0;
      const w00 = (1 - fx) * (1 - fy),
        w10 = fx * (1 - fy),
        w01 = (1 - fx) * fy,
        w11 = fx * fy;
      const in00 = x0 >= 0 && y0 >= 0,
        in10 = x0 + 1 < W && y0 >= 0,
        in01 = x0 >= 0 && y0 + 1 < H,
        in11 = x0 + 1 < W && y0 + 1 < H;
      const p00 = (y0 * W + x0) * 3,
        p10 = p00 + 3,
        p01 = p00 + W * 3,
        p11 = p01 + 3;
      for (let ch = 0; ch < 3; ch++) {
        let s = 0;
        if (in00) s += w00 * data[p00 + ch]!;
        if (in10) s += w10 * data[p10 + ch]!;
        if (in01) s += w01 * data[p01 + ch]!;
        if (in11) s += w11 * data[p11 + ch]!;
        out[o + ch] = s + 0.5;
      }
    }
  }
  return { data: out, width: outW, height: outH };
}

/** The 112x112 ArcFace-aligned face for 5 landmarks (insightface norm_crop). */
export function alignFace(img: RgbImage, kps: readonly Point[]): RgbImage {
  return alignFaceTo(img, kps, ARCFACE_TEMPLATE, ALIGNED_SIZE);
}

/** The size x size face whose 5 landmarks best match `template` (similarity transform). */
export function alignFaceTo(img: RgbImage, kps: readonly Point[], template: readonly Point[], size: number): RgbImage {
  const m = estimateSimilarity(kps, template);
  return warpAffine(img, invertAffine(m), size, size);
}

/**
 * Axis-aligned crop [x1, y1, x2, y2] (inclusive pixel bounds) resized to outW x outH with
 * cv2.resize's INTER_LINEAR pixel-centre convention.
 */
export function cropResize(img: RgbImage, x1: number, y1: number, x2: number, y2: number, outW: number, outH: number): RgbImage {
  const sx = (x2 - x1 + 1) / outW;
  const sy = (y2 - y1 + 1) / outH;
  // src = x1 + (u + 0.5) * sx - 0.5
  return warpAffine(img, [sx, 0, x1 + 0.5 * sx - 0.5, 0, sy, y1 + 0.5 * sy - 0.5], outW, outH);
}
