// Crude 2-D edits of one still photo, guided only by what POST /api/v1/detect returns (box
// and five points): the attacker's tools in issue 22. Every edit works on raw RGB and returns
// a new image; `s` in (0, 1] is the edit's strength (an attacker climbs it frame by frame).
import type { RgbImage } from '../../src/core/image-decode.js';

export type Pt = [number, number];

/** What /detect tells the attacker about the photo's face. */
export interface FaceGeom {
  bbox: [number, number, number, number];
  /** eye (image left), eye (image right), nose, mouth corner (image left), mouth corner (image right) */
  kps: Pt[];
}

/** The suite's seeded PRNG (prints its seed; --seed replays a run). */
export { seededRandom as rng } from './seeded.js';

function sample(img: RgbImage, x: number, y: number, out: Buffer, o: number): void {
  const { width: w, height: h, data } = img;
  const xc = Math.min(w - 1.001, Math.max(0, x));
  const yc = Math.min(h - 1.001, Math.max(0, y));
  const x0 = Math.floor(xc);
  const y0 = Math.floor(yc);
  const fx = xc - x0;
  const fy = yc - y0;
  const i00 = (y0 * w + x0) * 3;
  const i10 = i00 + 3;
  const i01 = i00 + w * 3;
  const i11 = i01 + 3;
  for (let c = 0; c < 3; c++) {
    const v = (data[i00 + c]! * (1 - fx) + data[i10 + c]! * fx) * (1 - fy) + (data[i01 + c]! * (1 - fx) + data[i11 + c]! * fx) * fy;
    out[o + c] = Math.round(v);
  }
}

/** Backward warp: each output pixel takes the source pixel `src(x, y)` (bilinear). */
export function warp(img: RgbImage, src: (x: number, y: number) => Pt | null): RgbImage {
  const out = Buffer.from(img.data);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const p = src(x, y);
      if (p) sample(img, p[0], p[1], out, (y * img.width + x) * 3);
    }
  }
  return { data: out, width: img.width, height: img.height };
}

/** Smooth weight: 1 inside the ellipse of radii (rx, ry) about c, falling to 0 at `fall` times them. */
function ellipseWeight(c: Pt, rx: number, ry: number, fall = 1.4): (x: number, y: number) => number {
  return (x, y) => {
    const d = Math.hypot((x - c[0]) / rx, (y - c[1]) / ry);
    if (d <= 1) return 1;
    if (d >= fall) return 0;
    const t = (d - 1) / (fall - 1);
    return 1 - t * t * (3 - 2 * t);
  };
}

const faceCentre = (g: FaceGeom): Pt => [(g.bbox[0] + g.bbox[2]) / 2, (g.bbox[1] + g.bbox[3]) / 2];
const faceW = (g: FaceGeom) => g.bbox[2] - g.bbox[0];
const faceH = (g: FaceGeom) => g.bbox[3] - g.bbox[1];
const mid = (a: Pt, b: Pt): Pt => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];

/**
 * Squeeze the face on one side of the nose and stretch it on the other (a turn as a flat
 * warp). dir +1 moves features towards image right (the user's own left turn).
 */
export function squeezeTurn(img: RgbImage, g: FaceGeom, dir: 1 | -1, s: number): RgbImage {
  const nose = g.kps[2]!;
  const half = faceW(g) / 2;
  const w = ellipseWeight(faceCentre(g), half * 1.05, faceH(g) * 0.6, 1.25);
  const k = 0.45 * s;
  return warp(img, (x, y) => {
    const wt = w(x, y);
    if (wt === 0) return null;
    // Output u in [-1, 1] about the nose; the side features move towards is squeezed.
    const u = (x - nose[0]) / half;
    const shift = dir * k * (1 - Math.min(1, u * u)) * half;
    return [x - wt * shift, y];
  });
}

/** Slide the inner face (eyes, nose, mouth) by (dx, dy) face sizes inside an outline that does not move. */
export function slideInner(img: RgbImage, g: FaceGeom, dx: number, dy: number): RgbImage {
  const eyes = mid(g.kps[0]!, g.kps[1]!);
  const mouth = mid(g.kps[3]!, g.kps[4]!);
  const c = mid(eyes, mouth);
  const w = ellipseWeight(c, faceW(g) * 0.36, faceH(g) * 0.36, 1.35);
  const sx = dx * faceW(g);
  const sy = dy * faceH(g);
  return warp(img, (x, y) => {
    const wt = w(x, y);
    return wt === 0 ? null : [x - wt * sx, y - wt * sy];
  });
}

/**
 * The whole photo seen rotated about a vertical (yaw) or horizontal (pitch) axis through the
 * face: a printed photo tilted in front of the camera (a homography).
 */
export function perspective(img: RgbImage, g: FaceGeom, axis: 'yaw' | 'pitch', degrees: number): RgbImage {
  const [cx, cy] = faceCentre(g);
  const f = 1.2 * Math.max(img.width, img.height);
  const a = (degrees * Math.PI) / 180;
  const ca = Math.cos(a);
  const sa = Math.sin(a);
  return warp(img, (x, y) => {
    // Ray through the output pixel hits the rotated plane; map back to plane coordinates.
    const u = x - cx;
    const v = y - cy;
    if (axis === 'yaw') {
      const den = f * ca - u * sa;
      if (den <= 1e-6) return [-1, -1];
      const X = (u * f) / den;
      const Z = X * sa;
      const Y = (v * (f + Z)) / f;
      return [cx + X, cy + Y];
    }
    const den = f * ca - v * sa;
    if (den <= 1e-6) return [-1, -1];
    const Y = (v * f) / den;
    const Z = Y * sa;
    const X = (u * (f + Z)) / f;
    return [cx + X, cy + Y];
  });
}

/** Left-right mirror image. */
export function mirror(img: RgbImage): RgbImage {
  return warp(img, (x, y) => [img.width - 1 - x, y]);
}

/** Mirror the detection geometry with the image. */
export function mirrorGeom(g: FaceGeom, width: number): FaceGeom {
  const m = (p: Pt): Pt => [width - 1 - p[0], p[1]];
  const [a, b, n, c, d] = g.kps as [Pt, Pt, Pt, Pt, Pt];
  return { bbox: [width - 1 - g.bbox[2], g.bbox[1], width - 1 - g.bbox[0], g.bbox[3]], kps: [m(b), m(a), m(n), m(d), m(c)] };
}

/** Mouth corners pulled outwards and upwards (a smile as a warp). */
export function smileWarp(img: RgbImage, g: FaceGeom, s: number): RgbImage {
  const l = g.kps[3]!;
  const r = g.kps[4]!;
  const mw = Math.hypot(r[0] - l[0], r[1] - l[1]);
  const sigma = mw * 0.35;
  const amp = s * mw * 0.3;
  return warp(img, (x, y) => {
    let dx = 0;
    let dy = 0;
    for (const [p, side] of [
      [l, -1],
      [r, 1],
    ] as const) {
      const wt = Math.exp(-((x - p[0]) ** 2 + (y - p[1]) ** 2) / (2 * sigma * sigma));
      dx += wt * side * amp;
      dy += -wt * amp * 0.8;
    }
    return dx === 0 && dy === 0 ? null : [x - dx, y - dy];
  });
}

function fillEllipse(img: RgbImage, c: Pt, rx: number, ry: number, colour: [number, number, number], soft = 0.25): void {
  const x0 = Math.max(0, Math.floor(c[0] - rx * 1.3));
  const x1 = Math.min(img.width - 1, Math.ceil(c[0] + rx * 1.3));
  const y0 = Math.max(0, Math.floor(c[1] - ry * 1.3));
  const y1 = Math.min(img.height - 1, Math.ceil(c[1] + ry * 1.3));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const d = Math.hypot((x - c[0]) / rx, (y - c[1]) / ry);
      const a = d <= 1 - soft ? 1 : d >= 1 ? 0 : (1 - d) / soft;
      if (a <= 0) continue;
      const o = (y * img.width + x) * 3;
      for (let k = 0; k < 3; k++) img.data[o + k] = Math.round(img.data[o + k]! * (1 - a) + colour[k]! * a);
    }
  }
}

function meanColour(img: RgbImage, c: Pt, r: number): [number, number, number] {
  const acc = [0, 0, 0];
  let n = 0;
  for (let y = Math.round(c[1] - r); y <= Math.round(c[1] + r); y++) {
    for (let x = Math.round(c[0] - r); x <= Math.round(c[0] + r); x++) {
      if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
      const o = (y * img.width + x) * 3;
      for (let k = 0; k < 3; k++) acc[k]! += img.data[o + k]!;
      n++;
    }
  }
  return acc.map((v) => v / Math.max(1, n)) as [number, number, number];
}

/** The jaw dropped by `s` and the gap between the lips painted dark (an open mouth). */
export function openMouth(img: RgbImage, g: FaceGeom, s: number): RgbImage {
  const l = g.kps[3]!;
  const r = g.kps[4]!;
  const m = mid(l, r);
  const mw = Math.hypot(r[0] - l[0], r[1] - l[1]);
  const drop = s * faceH(g) * 0.16;
  const w = ellipseWeight([m[0], m[1] + faceH(g) * 0.25], faceW(g) * 0.42, faceH(g) * 0.3, 1.3);
  const out = warp(img, (x, y) => {
    if (y < m[1]) return null;
    const wt = w(x, y) * Math.min(1, (y - m[1]) / (mw * 0.15));
    return wt === 0 ? null : [x, y - wt * drop];
  });
  fillEllipse(out, [m[0], m[1] + drop * 0.5], mw * 0.38, Math.max(1.5, drop * 0.5), [35, 18, 18]);
  return out;
}

/** Both eyes painted over with skin colour from below them; `lid` adds a dark lid line. */
export function paintEyes(img: RgbImage, g: FaceGeom, s: number, lid: boolean): RgbImage {
  const out: RgbImage = { data: Buffer.from(img.data), width: img.width, height: img.height };
  const ed = Math.hypot(g.kps[1]![0] - g.kps[0]![0], g.kps[1]![1] - g.kps[0]![1]);
  for (const e of [g.kps[0]!, g.kps[1]!]) {
    const skin = meanColour(img, [e[0], e[1] + ed * 0.35], ed * 0.06);
    fillEllipse(out, e, ed * (0.18 + 0.1 * s), ed * (0.08 + 0.06 * s), skin, 0.4);
    if (lid) fillEllipse(out, [e[0], e[1] + ed * 0.02], ed * (0.16 + 0.06 * s), Math.max(0.8, ed * 0.012), [40, 30, 30], 0.5);
  }
  return out;
}

/** Gaussian pixel noise (a different draw per frame): what a camera's sensor would add. */
export function addNoise(img: RgbImage, sigma: number, rand: () => number): RgbImage {
  const out = Buffer.from(img.data);
  for (let i = 0; i < out.length; i++) {
    const n = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    out[i] = Math.max(0, Math.min(255, Math.round(out[i]! + sigma * n)));
  }
  return { data: out, width: img.width, height: img.height };
}
