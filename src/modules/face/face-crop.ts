// Square face crops for the attribute models (age/gender): a square around the detector box,
// enlarged by a factor, optionally turned so the eyes are level. sharp does the heavy part off the
// event loop (crop + antialiased downscale); the roll, when asked for, is a bilinear resample of
// an image already at the output size, so the JS loop stays small (size^2 pixels).
import { sharpFromRgb, type RgbImage } from '../../core/image-decode.js';

export type Box = [number, number, number, number];
export type Point = [number, number];

/** A square region of the image: centre, side in pixels, roll in radians (eyes' angle). */
export interface FaceRegion {
  cx: number;
  cy: number;
  side: number;
  angle: number;
}

/** The square around `box` enlarged `scale` times; the roll comes from the eye landmarks when `level` is set. */
export function faceRegion(box: Box, kps: Point[] | undefined, scale: number, level: boolean): FaceRegion {
  const [x1, y1, x2, y2] = box;
  const side = Math.max(x2 - x1, y2 - y1) * scale;
  let angle = 0;
  const [le, re] = kps ?? [];
  if (level && le && re) angle = Math.atan2(re[1] - le[1], re[0] - le[0]);
  return { cx: (x1 + x2) / 2, cy: (y1 + y2) / 2, side, angle };
}

/**
 * The axis-aligned square `[x0, y0, side]` scaled to `out` x `out` pixels with sharp; parts
 * outside the image are black. Returns RGB bytes.
 */
async function squareCrop(img: RgbImage, x0: number, y0: number, side: number, out: number): Promise<Buffer> {
  const k = out / side;
  const ix0 = Math.max(0, Math.floor(x0));
  const iy0 = Math.max(0, Math.floor(y0));
  const ix1 = Math.min(img.width, Math.ceil(x0 + side));
  const iy1 = Math.min(img.height, Math.ceil(y0 + side));
  if (ix1 - ix0 < 1 || iy1 - iy0 < 1) return Buffer.alloc(out * out * 3);
  const w = Math.max(1, Math.min(out, Math.round((ix1 - ix0) * k)));
  const h = Math.max(1, Math.min(out, Math.round((iy1 - iy0) * k)));
  const left = Math.min(out - w, Math.max(0, Math.round((ix0 - x0) * k)));
  const top = Math.min(out - h, Math.max(0, Math.round((iy0 - y0) * k)));
  return sharpFromRgb(img)
    .extract({ left: ix0, top: iy0, width: ix1 - ix0, height: iy1 - iy0 })
    .resize(w, h, { fit: 'fill' })
    .extend({ left, top, right: out - w - left, bottom: out - h - top, background: { r: 0, g: 0, b: 0 } })
    .raw()
    .toBuffer();
}

/** Bilinear resample of `src` (n x n RGB) rotated by `angle` about its centre into an m x m square. */
function rotateCentre(src: Buffer, n: number, m: number, angle: number): Buffer {
  const out = Buffer.alloc(m * m * 3);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const c = n / 2;
  const h = m / 2;
  for (let v = 0; v < m; v++) {
    const dy = v + 0.5 - h;
    for (let u = 0; u < m; u++) {
      const dx = u + 0.5 - h;
      // Output axes are the face's axes: rotate them by the roll to find the source pixel.
      const sx = c + dx * cos - dy * sin - 0.5;
      const sy = c + dx * sin + dy * cos - 0.5;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= n || y0 + 1 >= n) continue;
      const fx = sx - x0;
      const fy = sy - y0;
      const p = (y0 * n + x0) * 3;
      const q = p + n * 3;
      const o = (v * m + u) * 3;
      for (let ch = 0; ch < 3; ch++) {
        const top = src[p + ch]! + (src[p + 3 + ch]! - src[p + ch]!) * fx;
        const bottom = src[q + ch]! + (src[q + 3 + ch]! - src[q + ch]!) * fx;
        out[o + ch] = Math.round(top + (bottom - top) * fy);
      }
    }
  }
  return out;
}

/** The region as a `size` x `size` RGB crop (bytes, row-major, 3 channels). */
export async function cropRegion(img: RgbImage, region: FaceRegion, size: number): Promise<Buffer> {
  const { cx, cy, side, angle } = region;
  if (Math.abs(angle) < 1e-3) return squareCrop(img, cx - side / 2, cy - side / 2, side, size);
  // The axis-aligned square holding the turned one, brought to about the output scale first.
  const k = size / side;
  const span = side * (Math.abs(Math.cos(angle)) + Math.abs(Math.sin(angle)));
  const n = Math.ceil(span * k) + 2;
  const outer = await squareCrop(img, cx - n / k / 2, cy - n / k / 2, n / k, n);
  return rotateCentre(outer, n, size, angle);
}
