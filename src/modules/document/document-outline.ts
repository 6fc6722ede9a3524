import { sharpFromRgb, type RgbImage } from '../../core/image-decode.js';
import { dist, orderQuad, type Point, type Quad } from './geometry.js';
import type { CV } from './opencv.js';

/** Side the outline search runs at: edges of a card or page survive this, and it stays cheap. */
const SEARCH_SIDE = 480;
/** A document covers at least this share of the photo... */
const MIN_AREA = 0.15;
/** ...and an outline hugging the frame is the photo's own border (a flat scan), not a document. */
const MAX_AREA = 0.92;
/**
 * Long side over short side of identity documents: ID-1 cards 1.59, passport data
 * pages (TD3) and TD2 cards 1.42. A portrait box (about 0.78) or a signature strip
 * is not taken for the document.
 */
const MIN_ASPECT = 1.25;
const MAX_ASPECT = 1.8;

export interface Outline {
  /** Corners in the image's coordinates, [tl, tr, br, bl]. */
  quad: Quad;
  /** Share of the image the document covers. */
  area: number;
}

/**
 * Finds a photographed document's outline: edges (Canny) on a small grey copy,
 * closed into contours, the largest convex four-cornered one that covers a
 * plausible share of the frame. Returns undefined for flat scans and for
 * photos where no such outline stands out.
 */
export async function findOutline(cv: CV, img: RgbImage): Promise<Outline | undefined> {
  const scale = Math.min(1, SEARCH_SIDE / Math.max(img.width, img.height));
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const grey = await sharpFromRgb(img).resize(w, h, { fit: 'fill' }).greyscale().raw().toBuffer();
  const src = new cv.Mat(h, w, cv.CV_8UC1);
  const blurred = new cv.Mat();
  const edges = new cv.Mat();
  const kernel = cv.Mat.ones(3, 3, cv.CV_8U);
  const contours = new cv.MatVector();
  const hierarchy = new cv.Mat();
  try {
    src.data.set(grey);
    cv.GaussianBlur(src, blurred, new cv.Size(5, 5), 0);
    cv.Canny(blurred, edges, 40, 120);
    cv.dilate(edges, edges, kernel);
    cv.findContours(edges, contours, hierarchy, cv.RETR_EXTERNAL, cv.CHAIN_APPROX_SIMPLE);
    let best: Outline | undefined;
    for (let i = 0; i < contours.size(); i++) {
      const c = contours.get(i);
      const approx = new cv.Mat();
      try {
        const area = cv.contourArea(c) / (w * h);
        if (area < MIN_AREA || area > MAX_AREA || (best && area <= best.area)) continue;
        cv.approxPolyDP(c, approx, 0.02 * cv.arcLength(c, true), true);
        if (approx.rows !== 4 || !cv.isContourConvex(approx)) continue;
        const pts: Point[] = [];
        for (let k = 0; k < 4; k++) pts.push({ x: approx.data32S[k * 2]! / scale, y: approx.data32S[k * 2 + 1]! / scale });
        const quad = orderCorners(pts);
        const qw = Math.max(dist(quad[0], quad[1]), dist(quad[3], quad[2]));
        const qh = Math.max(dist(quad[0], quad[3]), dist(quad[1], quad[2]));
        const aspect = Math.max(qw, qh) / Math.max(1, Math.min(qw, qh));
        if (aspect < MIN_ASPECT || aspect > MAX_ASPECT) continue;
        best = { quad, area };
      } finally {
        c.delete();
        approx.delete();
      }
    }
    return best;
  } finally {
    src.delete();
    blurred.delete();
    edges.delete();
    kernel.delete();
    contours.delete();
    hierarchy.delete();
  }
}

/** Corners as [tl, tr, br, bl] by the sums and differences of coordinates (robust to strong tilt). */
function orderCorners(pts: Point[]): Quad {
  const bySum = [...pts].sort((a, b) => a.x + a.y - (b.x + b.y));
  const byDiff = [...pts].sort((a, b) => a.y - a.x - (b.y - b.x));
  const tl = bySum[0]!;
  const br = bySum[3]!;
  const tr = byDiff[0]!;
  const bl = byDiff[3]!;
  const distinct = new Set([tl, tr, br, bl]).size === 4;
  return distinct ? [tl, tr, br, bl] : orderQuad(pts);
}

export interface Rectified {
  image: RgbImage;
  /** Maps a point of the rectified image back into the source image. */
  toSource: (p: Point) => Point;
}

/** Warps the document inside `quad` to a flat rectangle of its own proportions. */
export function rectify(cv: CV, img: RgbImage, quad: Quad): Rectified {
  const [tl, tr, br, bl] = quad;
  const width = Math.round(Math.max(dist(tl, tr), dist(bl, br)));
  const height = Math.round(Math.max(dist(tl, bl), dist(tr, br)));
  const src = new cv.Mat(img.height, img.width, cv.CV_8UC3);
  const out = new cv.Mat();
  const from = cv.matFromArray(
    4,
    1,
    cv.CV_32FC2,
    quad.flatMap((p) => [p.x, p.y]),
  );
  const to = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, width, 0, width, height, 0, height]);
  const back = cv.getPerspectiveTransform(to, from);
  const m = cv.getPerspectiveTransform(from, to);
  try {
    src.data.set(img.data);
    cv.warpPerspective(src, out, m, new cv.Size(width, height), cv.INTER_LINEAR, cv.BORDER_REPLICATE, new cv.Scalar());
    const hm = Array.from(back.data64F);
    const toSource = (p: Point): Point => {
      const d = hm[6]! * p.x + hm[7]! * p.y + hm[8]!;
      return { x: (hm[0]! * p.x + hm[1]! * p.y + hm[2]!) / d, y: (hm[3]! * p.x + hm[4]! * p.y + hm[5]!) / d };
    };
    return { image: { data: Buffer.from(out.data), width, height }, toSource };
  } finally {
    src.delete();
    out.delete();
    from.delete();
    to.delete();
    back.delete();
    m.delete();
  }
}
