import { classAllows, MRZ_ALPHABET, type CharClass } from './mrz-format.js';
import { GRID_CAP, GRID_H, GRID_MARGIN, GRID_W, normalise, type GlyphTemplates } from './ocrb-templates.js';
import { luma } from '../../core/luma.js';

/**
 * Cuts a read MRZ row into its character cells and scores each cell against the
 * OCR-B templates by normalised cross-correlation. The font is monospaced, so once
 * the row's first cell, pitch and cap band are known every position has its cell;
 * those are fitted to the row itself, by the correlation of the characters the
 * recogniser read surely with their own templates.
 */

/** A row crop as ink (dark = high), one value per pixel. */
export interface InkPlane {
  data: Float32Array;
  width: number;
  height: number;
}

/** Ink of an RGB crop: 255 minus luminance. Correlation is blind to contrast and offset, so no thresholding. */
export function inkOf(rgb: Uint8Array, width: number, height: number): InkPlane {
  const data = new Float32Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = 255 - luma(rgb, i * 3);
  return { data, width, height };
}

/**
 * Where a row's cells lie in its crop, in crop pixels: cell k is centred at
 * x = a + b k + c k^2 (a perspective view spaces the characters unevenly; the
 * detector's box does not undo it) with its cap line at top0 + top1 k (a slight tilt)
 * and a cap height `cap`.
 */
export interface RowGeometry {
  a: number;
  b: number;
  c: number;
  top0: number;
  top1: number;
  cap: number;
}

/** Centre, local pitch and cap line of cell k. */
export function cellAt(g: RowGeometry, k: number): { cx: number; pitch: number; top: number } {
  return { cx: g.a + g.b * k + g.c * k * k, pitch: g.b + 2 * g.c * k, top: g.top0 + g.top1 * k };
}

/** Scratch for sampleCell: each grid column's pixel column and interpolation weight (two sets for fine cells). */
const colX = new Int32Array(2 * GRID_W);
const colF = new Float64Array(2 * GRID_W);

/**
 * The clamped sample columns of one cell, as bilinear sampling takes them: x clamped to
 * [0, width - 1.001], its whole pixel and its fraction, into colX / colF at `at`.
 */
function sampleColumns(width: number, left: number, sx: number, offset: number, at: number): void {
  for (let gx = 0; gx < GRID_W; gx++) {
    const xc = Math.min(width - 1.001, Math.max(0, left + (gx + offset) * sx));
    const xi = Math.floor(xc);
    colX[at + gx] = xi;
    colF[at + gx] = xc - xi;
  }
}

/**
 * One grid row of bilinear samples at height y into `out` (row gy), at the columns in
 * colX / colF: bilinear interpolation of the four pixels round each sample.
 */
function sampleRow(p: InkPlane, y: number, out: Float32Array, gy: number): void {
  const yc = Math.min(p.height - 1.001, Math.max(0, y));
  const yi = Math.floor(yc);
  const fy = yc - yi;
  const data = p.data;
  const w = p.width;
  const row = yi * w;
  for (let gx = 0; gx < GRID_W; gx++) {
    const fx = colF[gx]!;
    const i = row + colX[gx]!;
    const v = (data[i]! * (1 - fx) + data[i + 1]! * fx) * (1 - fy) + (data[i + w]! * (1 - fx) + data[i + w + 1]! * fx) * fy;
    out[gy * GRID_W + gx] = v;
  }
}

/** A cell sampled, scored and dropped before the next is sampled (most cells): no array a cell to collect. */
const scratch = new Float32Array(GRID_W * GRID_H);

/** A fine cell's four samples per grid cell, summed in double before the cell is stored as float32. */
const fineSum = new Float64Array(GRID_W * GRID_H);

/**
 * The cell of position k on the template grid (zero-mean, unit norm), shifted by (dx, dy)
 * pixels. `fine` averages four samples a grid cell (for classifying); one (for searching
 * the geometry) costs a quarter. Written into `out` when given (a scratch cell the caller
 * uses before it samples the next), else into a new array. The columns' interpolation
 * weights are worked out once a cell rather than once a sample (the stage runs on the main
 * thread, about 2,500 cells a zone).
 */
export function sampleCell(p: InkPlane, g: RowGeometry, k: number, dx = 0, dy = 0, fine = false, out = new Float32Array(GRID_W * GRID_H)): Float32Array {
  const { cx, pitch, top } = cellAt(g, k);
  const left = cx - pitch / 2 + dx;
  const sy = g.cap / GRID_CAP;
  const y0 = top - GRID_MARGIN * sy + dy;
  const sx = pitch / GRID_W;
  if (fine) {
    // The four samples of a grid cell added in the order they were always summed: (xa, ya),
    // (xb, ya), (xa, yb), (xb, yb), starting from 0.
    fineSum.fill(0);
    sampleColumns(p.width, left, sx, 0.25, 0);
    sampleColumns(p.width, left, sx, 0.75, GRID_W);
    for (let gy = 0; gy < GRID_H; gy++) {
      const ya = y0 + (gy + 0.25) * sy;
      const yb = y0 + (gy + 0.75) * sy;
      addInterleaved(p, ya, fineSum, gy);
      addInterleaved(p, yb, fineSum, gy);
    }
    for (let i = 0; i < out.length; i++) out[i] = fineSum[i]!;
  } else {
    sampleColumns(p.width, left, sx, 0.5, 0);
    for (let gy = 0; gy < GRID_H; gy++) sampleRow(p, y0 + (gy + 0.5) * sy, out, gy);
  }
  return normalise(out);
}

/** One height's two samples per grid cell of a fine cell (columns xa then xb) added into `sum`. */
function addInterleaved(p: InkPlane, y: number, sum: Float64Array, gy: number): void {
  const yc = Math.min(p.height - 1.001, Math.max(0, y));
  const yi = Math.floor(yc);
  const fy = yc - yi;
  const data = p.data;
  const w = p.width;
  const row = yi * w;
  for (let gx = 0; gx < GRID_W; gx++) {
    const fa = colF[gx]!;
    const a = row + colX[gx]!;
    const fb = colF[GRID_W + gx]!;
    const b = row + colX[GRID_W + gx]!;
    let s = sum[gy * GRID_W + gx]!;
    s += (data[a]! * (1 - fa) + data[a + 1]! * fa) * (1 - fy) + (data[a + w]! * (1 - fa) + data[a + w + 1]! * fa) * fy;
    s += (data[b]! * (1 - fb) + data[b + 1]! * fb) * (1 - fy) + (data[b + w]! * (1 - fb) + data[b + w + 1]! * fb) * fy;
    sum[gy * GRID_W + gx] = s;
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Best correlation of a cell with a character's variants (all of them, or only those given). */
export function charScore(t: GlyphTemplates, cell: Float32Array, c: string, variant?: number | readonly number[]): number {
  const variants = t.byChar[MRZ_ALPHABET.indexOf(c)];
  if (!variants) return -1;
  if (typeof variant === 'number') return dot(cell, variants[variant]!);
  let best = -1;
  if (variant) for (const v of variant) best = Math.max(best, dot(cell, variants[v]!));
  else for (const v of variants) best = Math.max(best, dot(cell, v));
  return best;
}

/**
 * Look-alike pairs on which the recogniser's preference says little about the print: fitting
 * the glyph fusion to 439 traced cells whose truth was O or 0 (calibration seeds 1879738899 and
 * 257643564, 300 documents each) gave the recogniser's log-odds a weight of -0.14 beside the
 * templates' 48 (between -0.5 and 0.3 in each of the four fonts; 0.4-0.9 with an intercept,
 * which absorbs its bias). PP-OCR reads the pair by its context: a document number's OO reads 00
 * at 0.99. So its sure O or 0 is no label to test a font with (anchorScore). Splitting the pair
 * by the pixels alone was tried and not kept: see docs/documents.md, "Fusion".
 */
const UNTOLD_PAIRS: readonly string[] = ['O0'];

/**
 * The anchor's `alt` for a character read surely at a position of class `cls`: its untold
 * partner (UNTOLD_PAIRS) where the class admits that too, else none (a date's 0 is the format's).
 */
export function untoldAlt(c: string, cls: CharClass): string | undefined {
  for (const [a, b] of UNTOLD_PAIRS) {
    const partner = c === a ? b : c === b ? a : undefined;
    if (partner !== undefined) return classAllows(cls, partner) ? partner : undefined;
  }
  return undefined;
}

/**
 * A sure character's correlation with its own templates, where "its own" is either of an
 * untold pair at a position that admits both (Anchor.alt): there the recogniser's choice within
 * the pair is no label to test the font against.
 */
function anchorScore(t: GlyphTemplates, cell: Float32Array, a: Anchor, variant: number): number {
  const own = charScore(t, cell, a.c, variant);
  return a.alt ? Math.max(own, charScore(t, cell, a.alt, variant)) : own;
}

/**
 * The variants the geometry is searched with (a middle weight sharp, a heavier one
 * blurred): placing cells needs a fair match, not the best one, at a quarter of the cost.
 */
const SEARCH_VARIANTS = [2, 5];

/** A position whose character the recogniser read surely, and where its CTC timing puts it (crop x). */
export interface Anchor {
  k: number;
  c: string;
  x: number;
  /**
   * The character's untold partner (untoldAlt) where the position admits it too: a document
   * number's O or 0 is the recogniser's guess, a date's 0 is the format's and must look like one.
   */
  alt?: string;
}

/** Most anchors the fit uses (spread along the row): enough to pin the geometry, cheap to score. */
const MAX_FIT_ANCHORS = 12;
/** Mean anchor correlation of the coarse band scan below which a row is not fitted further. */
const GIVE_UP_BELOW = 0.55;
/** Positions the anchors must span before the fit may bend (a perspective view's uneven spacing). */
const QUADRATIC_SPAN = 20;
/** Horizontal search around an anchor's timing, in pitches, and its step. */
const ANCHOR_REACH = 0.4;
const ANCHOR_STEP = 0.05;

/** An anchor's best correlation over small horizontal shifts around x, with a given band. */
function anchorBest(p: InkPlane, t: GlyphTemplates, a: Anchor, pitch: number, top: number, cap: number, reach: number): { s: number; x: number } {
  const g: RowGeometry = { a: a.x, b: pitch, c: 0, top0: top, top1: 0, cap };
  let best = { s: -1, x: a.x };
  for (let d = -reach; d <= reach + 1e-9; d += ANCHOR_STEP) {
    const s = charScore(t, sampleCell(p, g, 0, d * pitch, 0, false, scratch), a.c, SEARCH_VARIANTS);
    if (s > best.s) best = { s, x: a.x + d * pitch };
  }
  return best;
}

/** Weighted least squares of y on the given powers of k (1, k, k^2...); undefined when singular. */
function polyFit(ks: number[], ys: number[], ws: number[], degree: number): number[] | undefined {
  const n = degree + 1;
  const A = Array.from({ length: n }, () => new Array<number>(n + 1).fill(0));
  ks.forEach((k, i) => {
    const pw = Array.from({ length: n }, (_, j) => k ** j);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) A[r]![c] = A[r]![c]! + ws[i]! * pw[r]! * pw[c]!;
      A[r]![n] = A[r]![n]! + ws[i]! * pw[r]! * ys[i]!;
    }
  });
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[piv]![c]!)) piv = r;
    if (Math.abs(A[piv]![c]!) < 1e-9) return undefined;
    [A[c], A[piv]] = [A[piv]!, A[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = A[r]![c]! / A[c]![c]!;
      for (let k = c; k <= n; k++) A[r]![k] = A[r]![k]! - f * A[c]![k]!;
    }
  }
  return A.map((row, i) => row[n]! / row[i]!);
}

/**
 * Fits a row's geometry to its sure characters: the cap band by a coarse scan (the
 * crop is cut around the detected box, whose margins vary), then each anchor's best
 * horizontal place near its CTC timing, and a smooth curve through those places (a
 * quadratic in the position, outliers dropped). Returns the geometry, the anchors'
 * mean correlation under it, and the share of anchors the templates alone classify
 * as the recogniser read them: another font, or a row cut wrong, scores low on
 * both and its glyph evidence is not used.
 */
export function fitRow(p: InkPlane, t: GlyphTemplates, pitch: number, capGuess: number, anchors: Anchor[]): { geometry: RowGeometry; fit: number; agreement: number; variant: number } | undefined {
  const step = Math.max(1, Math.ceil(anchors.length / MAX_FIT_ANCHORS));
  const used = anchors.filter((_, i) => i % step === 0);
  if (used.length < 4) return undefined;
  const mid = p.height / 2;
  const scan = used.filter((_, i) => i % 2 === 0);
  let band = { top: mid - capGuess / 2, cap: capGuess, s: -2 };
  for (const capScale of [0.6, 0.75, 0.9, 1.05, 1.2])
    for (const shift of [-0.15, 0, 0.15]) {
      const cap = capGuess * capScale;
      const top = mid - cap / 2 + shift * capGuess;
      let s = 0;
      for (const a of scan) s += anchorBest(p, t, a, pitch, top, cap, 0.1).s;
      if (s / scan.length > band.s) band = { top, cap, s: s / scan.length };
    }
  // A row OCR-B cannot explain even roughly (another font, not text) is given up here, at a
  // fraction of the fit's cost.
  if (band.s < GIVE_UP_BELOW) return undefined;
  // Each anchor's place, then the curve through them.
  const placed = used.map((a) => ({ a, ...anchorBest(p, t, a, pitch, band.top, band.cap, ANCHOR_REACH) }));
  let keep = placed;
  let coef: number[] | undefined;
  for (let round = 0; round < 2; round++) {
    coef = polyFit(
      keep.map((q) => q.a.k),
      keep.map((q) => q.x),
      keep.map((q) => Math.max(0.05, q.s)),
      // The quadratic term only where the anchors span enough of the row to pin it: beyond
      // the last anchor a curve fitted to a short stretch runs off the cells.
      keep.length >= 8 && keep[keep.length - 1]!.a.k - keep[0]!.a.k >= QUADRATIC_SPAN ? 2 : 1,
    );
    if (!coef) return undefined;
    const at = (k: number) => coef![0]! + coef![1]! * k + (coef![2] ?? 0) * k * k;
    const next = placed.filter((q) => Math.abs(q.x - at(q.a.k)) < 0.25 * pitch);
    if (next.length < 4) break;
    keep = next;
  }
  if (!coef) return undefined;
  const geometry: RowGeometry = { a: coef[0]!, b: coef[1]!, c: coef[2] ?? 0, top0: band.top, top1: 0, cap: band.cap };
  // The cap line's tilt, from the anchors' best vertical places along the fitted curve.
  const ys = keep.map((q) => {
    let best = { s: -2, dy: 0 };
    for (const f of [-0.12, -0.06, 0, 0.06, 0.12]) {
      const s = charScore(t, sampleCell(p, geometry, q.a.k, 0, f * band.cap, false, scratch), q.a.c, SEARCH_VARIANTS);
      if (s > best.s) best = { s, dy: f * band.cap };
    }
    return best;
  });
  const tilt = polyFit(
    keep.map((q) => q.a.k),
    ys.map((y) => band.top + y.dy),
    ys.map((y) => Math.max(0.05, y.s)),
    1,
  );
  if (tilt) {
    geometry.top0 = tilt[0]!;
    geometry.top1 = tilt[1]!;
  }
  // The band again, finely, now that every anchor sits in its cell.
  const meanOwn = (g: RowGeometry) => used.reduce((acc, a) => acc + charScore(t, sampleCell(p, g, a.k, 0, 0, false, scratch), a.c, SEARCH_VARIANTS), 0) / used.length;
  let bandBest = meanOwn(geometry);
  for (const step of [0.04, 0.02]) {
    const base = { ...geometry };
    for (const capScale of [1 - step, 1, 1 + step])
      for (const shift of [-step, 0, step]) {
        // The unchanged band is the geometry as it stands, whose score bandBest already is.
        if (capScale === 1 && shift === 0) continue;
        const cap = base.cap * capScale;
        const cand = { ...base, cap, top0: base.top0 + (base.cap - cap) / 2 + shift * base.cap };
        const sc = meanOwn(cand);
        if (sc > bandBest) {
          bandBest = sc;
          Object.assign(geometry, cand);
        }
      }
  }
  // How well OCR-B explains the row, and how often the templates alone name the sure
  // characters right (a measured accuracy of the classifier on this very row; an untold pair's
  // either character is right).
  // The print's weight and blur: the variant that fits the sure characters best. Comparing
  // candidates in that one variant keeps a blurred O from matching a heavier, sharper 0.
  const cells = anchors.map((a) => sampleCell(p, geometry, a.k, 0, 0, true));
  const nVariants = t.byChar[0]!.length;
  let variant = 0;
  let fit = -2;
  for (let v = 0; v < nVariants; v++) {
    let s = 0;
    anchors.forEach((a, i) => (s += anchorScore(t, cells[i]!, a, v)));
    if (s / anchors.length > fit) {
      fit = s / anchors.length;
      variant = v;
    }
  }
  let agree = 0;
  anchors.forEach((a, i) => {
    const own = anchorScore(t, cells[i]!, a, variant);
    if (![...MRZ_ALPHABET].some((c) => c !== a.c && c !== a.alt && charScore(t, cells[i]!, c, variant) >= own)) agree++;
  });
  return { geometry, fit, agreement: agree / anchors.length, variant };
}

/** Horizontal shifts a single cell is tried at, in pitches: print jitter and the fit's leftover error. */
const CELL_SHIFTS = [-0.12, -0.06, 0, 0.06, 0.12];

/** Each candidate's best correlation with the cell at position k, over small shifts. */
export function scoreCandidates(p: InkPlane, t: GlyphTemplates, g: RowGeometry, variant: number, k: number, candidates: string[]): Map<string, number> {
  const out = new Map<string, number>(candidates.map((c) => [c, -1]));
  for (const s of CELL_SHIFTS) {
    const cell = sampleCell(p, g, k, s * cellAt(g, k).pitch, 0, true, scratch);
    for (const c of candidates) out.set(c, Math.max(out.get(c)!, charScore(t, cell, c, variant)));
  }
  return out;
}
