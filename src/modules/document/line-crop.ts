import type { RgbImage } from '../../core/image-decode.js';
import { quadSize, type Quad } from './geometry.js';
import type { CV } from './opencv.js';

type Mat = InstanceType<CV['Mat']>;

/** An RGB crop, already at the recogniser's height. */
export interface LineImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Copies an RgbImage into an OpenCV matrix (the caller deletes it). */
export function matFromRgb(cv: CV, img: RgbImage): Mat {
  const mat = new cv.Mat(img.height, img.width, cv.CV_8UC3);
  mat.data.set(img.data);
  return mat;
}

export interface CropOptions {
  /** Output height in pixels (the recogniser's 48). */
  height: number;
  /** Horizontal stretch applied after scaling to `height` (1 = keep the aspect ratio). */
  stretch?: number;
  /** Crops taller than this multiple of their width are turned upright (vertical text). */
  rotateTallerThan?: number;
  /** Warp interpolation: bicubic (default, as PaddleOCR) or bilinear (a softer enlargement). */
  interpolation?: 'cubic' | 'linear';
  /** Keep only dark neutral ink (see neutralInk): for print known to be black, as an MRZ is. */
  neutralInk?: boolean;
  /** With neutralInk: a dim crop's levels stretched to the full range (see stretchLevels). */
  stretchDim?: boolean;
}

/**
 * Cuts a text quad out of the image with a perspective warp straight to the
 * recogniser's height (PaddleOCR's get_rotate_crop_image followed by its resize),
 * so tilted lines come out level. Text much smaller than the target is warped at
 * its own size first and then shrunk with area averaging instead of point sampling.
 */
export function cropQuad(cv: CV, src: Mat, quad: Quad, opts: CropOptions): LineImage {
  const { corners, qw, qh, outW } = cropGeometry(quad, opts);
  const outH = opts.height;
  const shrink = qh > outH * 1.5;
  const warpW = shrink ? Math.round(qw) : outW;
  const warpH = shrink ? Math.round(qh) : outH;
  const srcPts = cv.matFromArray(
    4,
    1,
    cv.CV_32FC2,
    corners.flatMap((p) => [p.x, p.y]),
  );
  const dstPts = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, warpW, 0, warpW, warpH, 0, warpH]);
  const m = cv.getPerspectiveTransform(srcPts, dstPts);
  const warped = new cv.Mat();
  const out = new cv.Mat();
  try {
    cv.warpPerspective(src, warped, m, new cv.Size(warpW, warpH), opts.interpolation === 'linear' ? cv.INTER_LINEAR : cv.INTER_CUBIC, cv.BORDER_REPLICATE, new cv.Scalar());
    if (shrink) cv.resize(warped, out, new cv.Size(outW, outH), 0, 0, cv.INTER_AREA);
    const final = shrink ? out : warped;
    const data = new Uint8Array(final.data);
    if (opts.neutralInk) neutralInk(data);
    if (opts.neutralInk && opts.stretchDim) stretchLevels(data);
    return { data, width: final.cols, height: final.rows };
  } finally {
    srcPts.delete();
    dstPts.delete();
    m.delete();
    warped.delete();
    out.delete();
  }
}

/**
 * Turns an RGB crop grey by its brightest channel, in place. ICAO 9303 prints the MRZ in
 * black (it must absorb in the near infrared as well), which is dark in all three
 * channels; anything coloured is not the zone's print and comes out light: a box a user
 * or an app drew round the zone (a red frame crossing the top and bottom rows was read as
 * letters, doubling and shifting them), a coloured pattern or stamp under the print.
 */
export function neutralInk(rgb: Uint8Array): void {
  for (let i = 0; i + 2 < rgb.length; i += 3) {
    // Compared by hand: Math.max of three was a tenth of the crops' main-thread time.
    const r = rgb[i]!;
    const g = rgb[i + 1]!;
    const b = rgb[i + 2]!;
    const v = r > g ? (r > b ? r : b) : g > b ? g : b;
    rgb[i] = v;
    rgb[i + 1] = v;
    rgb[i + 2] = v;
  }
}

/** Share of a grey crop's pixels at each end that the level stretch lets clip (noise, specks). */
const STRETCH_CLIP = 0.01;
/** Crops whose levels already span this much (half the range) are left as they are. */
const DIM_SPAN = 128;

/**
 * Stretches a grey crop's levels (R = G = B, from neutralInk) so that its darkest and brightest
 * 1% reach 0 and 255, in place. The recogniser normalises every crop with the same fixed mean
 * and scale, so a row photographed in a dim room (paper at 40, ink at 10, the sensor's noise on
 * both) reaches it as a near-uniform grey in which fillers and thin strokes drown. Only dim
 * crops, spanning less than half the range, are stretched.
 */
export function stretchLevels(grey: Uint8Array): void {
  const hist = new Uint32Array(256);
  const n = Math.floor(grey.length / 3);
  for (let i = 0; i < n; i++) hist[grey[i * 3]!]!++;
  const clip = Math.floor(n * STRETCH_CLIP);
  let lo = 0;
  for (let seen = hist[0]!; seen <= clip && lo < 255; seen += hist[++lo]!);
  let hi = 255;
  for (let seen = hist[255]!; seen <= clip && hi > 0; seen += hist[--hi]!);
  // A blank crop has nothing to stretch but noise; a well-lit one is read as it is (stretching
  // it changed as many right reads into wrong ones as the other way).
  if (hi - lo < 8 || hi - lo >= DIM_SPAN) return;
  const map = new Uint8Array(256);
  for (let v = 0; v < 256; v++) map[v] = Math.max(0, Math.min(255, Math.round(((v - lo) * 255) / (hi - lo))));
  for (let i = 0; i < grey.length; i++) grey[i] = map[grey[i]!]!;
}

/** The crop's width before cutting it: what the recogniser will have to read. */
export function cropWidth(quad: Quad, opts: CropOptions): number {
  return cropGeometry(quad, opts).outW;
}

function cropGeometry(quad: Quad, opts: CropOptions): { corners: Quad; qw: number; qh: number; outW: number } {
  let { width: qw, height: qh } = quadSize(quad);
  qw = Math.max(1, qw);
  qh = Math.max(1, qh);
  let corners = quad;
  if (qh / qw >= (opts.rotateTallerThan ?? 1.5)) {
    // Vertical text: read it as if turned 90 degrees counter-clockwise (np.rot90 in PaddleOCR).
    corners = [quad[1], quad[2], quad[3], quad[0]];
    [qw, qh] = [qh, qw];
  }
  return { corners, qw, qh, outW: Math.max(1, Math.round((opts.height * qw * (opts.stretch ?? 1)) / qh)) };
}

/** The crop turned 180 degrees (for lines the orientation classifier finds upside down). */
export function rotate180(line: LineImage): LineImage {
  const out = new Uint8Array(line.data.length);
  const n = line.width * line.height;
  for (let i = 0; i < n; i++) {
    const j = (n - 1 - i) * 3;
    out[i * 3] = line.data[j]!;
    out[i * 3 + 1] = line.data[j + 1]!;
    out[i * 3 + 2] = line.data[j + 2]!;
  }
  return { data: out, width: line.width, height: line.height };
}
