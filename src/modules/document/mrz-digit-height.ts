import { classAllows, MRZ_ALPHABET, type CharClass } from './mrz-format.js';
import { GRID_CAP, GRID_H, GRID_MARGIN, GRID_W, type GlyphTemplates } from './ocrb-templates.js';

/**
 * OCR-B's digits stand taller than its capitals: rendered, a digit's top lies about 0.08 of
 * the cap height above the letters' cap line, which is what tells `0` from `O`, `1` from `I`,
 * `2` from `Z`, `8` from `B` in a font whose look-alikes otherwise differ by little more than
 * that (cell correlation: an `O` printed at 22 pixels scored 0.758 against `O` and 0.784
 * against `0`). FreeMono's digits stand as tall above its capitals; DejaVu Sans Mono's and
 * Liberation Mono's do not. Real prints keep it: measured on the shared set's OCR-B zones (on
 * the row crops, at a finer vertical step than the grid's), digits stood 0.079 of the cap
 * height above letters in the same row (p10-p90 0.064-0.110,
 * 37 rows), as on generated ones (0.079), and the top alone told a cell's letter from a digit
 * 96.6% of the time against each row's other characters. PP-OCR reads the pair by its
 * context instead (a document number's `OO` reads `00` at 0.99), so the height is evidence
 * it lacks.
 *
 * Each cell's top edge is measured on the glyph stage's own grid (the cell sampled at the
 * row's fitted geometry) and so is each template's, so a character's expected top is the
 * font's as rendered, its shape's quirks included (a `1`'s slanted flag tops out lower than a
 * `0`). A row's level (how far its print's tops sit from the templates') comes from the
 * characters its format fixes as letters or digits (a nationality, a date, a check digit).
 */

/** Grid columns the top edge is looked for in: the cell's middle, clear of a neighbour's reach. */
const FIRST_COLUMN = Math.round(GRID_W * 0.2);
const LAST_COLUMN = Math.round(GRID_W * 0.8);

/** A profile row this far up from the cell's least ink to its most is part of a stroke (a thin arc's included). */
const STROKE_FROM = 0.35;

/**
 * The top edge of a glyph on the grid (GRID_W x GRID_H, ink positive, any offset and scale),
 * in cap heights above the cap line. The ink's profile down the cell is the most ink in each
 * grid row across the cell's middle; its topmost stroke is the first peak of that profile
 * clear of the background, and the edge is where the profile's upper flank reaches halfway to
 * that peak. Halfway to the cell's most ink instead lost thin tops: a sharp FreeMono `O`'s
 * top arc never reached it, and the edge was found at its bottom arc. NaN for a cell with no
 * contrast, or inked from its first row (cut off above).
 */
export function gridTop(cell: Float32Array): number {
  const profile = new Float64Array(GRID_H);
  let lo = Infinity;
  let hi = -Infinity;
  for (let gy = 0; gy < GRID_H; gy++) {
    let m = -Infinity;
    for (let gx = FIRST_COLUMN; gx < LAST_COLUMN; gx++) m = Math.max(m, cell[gy * GRID_W + gx]!);
    profile[gy] = m;
    lo = Math.min(lo, m);
    hi = Math.max(hi, m);
  }
  if (!(hi > lo)) return NaN;
  let peak = 0;
  while (peak < GRID_H && profile[peak]! < lo + STROKE_FROM * (hi - lo)) peak++;
  if (peak === 0 || peak === GRID_H) return NaN;
  while (peak + 1 < GRID_H && profile[peak + 1]! > profile[peak]!) peak++;
  const half = (lo + profile[peak]!) / 2;
  let gy = 0;
  while (profile[gy]! < half) gy++;
  if (gy === 0) return NaN;
  const f = (half - profile[gy - 1]!) / (profile[gy]! - profile[gy - 1]!);
  // Grid row gy's samples are centred half a row down; the cap line is the margin's lower edge.
  return (GRID_MARGIN - (gy - 0.5 + f)) / GRID_CAP;
}

/**
 * The template variant a character's expected top is measured on: a middle stroke weight,
 * unblurred. The thinnest weight's strokes alias on the grid (FreeMono's `Q` measured a cap
 * height low), and the blurred ones ink the first row; a print's blur moves every top of a row
 * alike, which its level takes up.
 */
const MEASURED_VARIANT = 2;

const expectedCache = new WeakMap<GlyphTemplates, Float64Array>();

/** Each MRZ character's top (gridTop) in a font's templates (MEASURED_VARIANT). */
export function templateTops(t: GlyphTemplates): Float64Array {
  let tops = expectedCache.get(t);
  if (!tops) expectedCache.set(t, (tops = Float64Array.from(t.byChar, (variants) => gridTop(variants[MEASURED_VARIANT]!))));
  return tops;
}

/** A row's height model: where its print's tops sit against the templates', and how closely. */
export interface HeightModel {
  /** Median of the reference characters' measured tops less their templates'. */
  level: number;
  /** The spread of those differences (a robust sd), never under NOISE_FLOOR. */
  noise: number;
}

/** A character the format fixes as a letter or a digit: a reference for its row's level. */
export interface HeightReference {
  kind: 'letter' | 'digit';
  /** Measured top less the template's. */
  residual: number;
}

/** The kind a position's class fixes a read character to, or undefined where letters and digits both stand there. */
function fixedKind(cls: CharClass, c: string): 'letter' | 'digit' | undefined {
  if (c === '<') return undefined;
  const letters = classAllows(cls, 'A') || classAllows(cls, 'M');
  const digits = classAllows(cls, '0');
  if (letters && digits) return undefined;
  return digits ? 'digit' : 'letter';
}

/**
 * A read this sure makes a reference: the class already fixes the kind, and the character read
 * moves the expected top by a hundredth or two at most (a dim zone's dates read at 0.5-0.9 were
 * its only digits).
 */
const REFERENCE_SURE = 0.5;

/**
 * The references of a row: cells whose class admits letters only or digits only, read as a
 * character the class admits at REFERENCE_SURE or more, with a measured top.
 */
export function rowReferences(tops: ArrayLike<number>, expected: Float64Array, classes: readonly CharClass[], reads: readonly { c: string; p: number }[]): HeightReference[] {
  const out: HeightReference[] = [];
  for (let k = 0; k < reads.length; k++) {
    const { c, p } = reads[k]!;
    const kind = p >= REFERENCE_SURE && classAllows(classes[k]!, c) ? fixedKind(classes[k]!, c) : undefined;
    const top = tops[k]!;
    const want = expected[MRZ_ALPHABET.indexOf(c)]!;
    if (kind && Number.isFinite(top) && Number.isFinite(want)) out.push({ kind, residual: top - want });
  }
  return out;
}

/**
 * The font's own letter/digit step: the median digit's top above the median letter's in its
 * templates. Under MIN_STEP the font has none (DejaVu Sans Mono, Liberation Mono) and heights
 * say nothing of letters against digits.
 */
export function fontStep(expected: Float64Array): number {
  const letters: number[] = [];
  const digits: number[] = [];
  [...MRZ_ALPHABET].forEach((c, i) => {
    if (c >= '0' && c <= '9') digits.push(expected[i]!);
    else if (c >= 'A' && c <= 'Z') letters.push(expected[i]!);
  });
  return median(digits) - median(letters);
}

/** A font whose digits stand less than this (cap heights) above its letters has no step to go by. */
export const MIN_STEP = 0.04;
/** References a row needs for its level. */
const MIN_REFERENCES = 3;
/** The least spread a row's tops are taken to have (cap heights): a few sure references can agree by chance. */
const NOISE_FLOOR = 0.015;

/**
 * Whether a row's print shows the font's step: its letters' and digits' residuals (measured
 * top less the template's) agree within half the step. A print whose digits stand no taller
 * than its letters leaves them a step apart, and its heights are no evidence. Undefined where
 * the row lacks two references of either kind to tell.
 */
export function showsStep(refs: readonly HeightReference[], step: number): boolean | undefined {
  const letters = refs.filter((r) => r.kind === 'letter').map((r) => r.residual);
  const digits = refs.filter((r) => r.kind === 'digit').map((r) => r.residual);
  if (letters.length < 2 || digits.length < 2) return undefined;
  return Math.abs(median(digits) - median(letters)) < step / 2;
}

/** A row's height model from its references; undefined for too few. */
export function heightModel(refs: readonly HeightReference[]): HeightModel | undefined {
  if (refs.length < MIN_REFERENCES) return undefined;
  const residuals = refs.map((r) => r.residual);
  const level = median(residuals);
  const mad = median(residuals.map((r) => Math.abs(r - level)));
  return { level, noise: Math.max(NOISE_FLOOR, 1.4826 * mad) };
}

/**
 * The model a row with too few references of its own borrows from the zone's other rows: their
 * median level, with the noise widened to BORROWED_NOISE at least, since rows are fitted apart
 * and their levels differ by a few hundredths of the cap height (-0.034 to 0.014 for the
 * letters of the shared set's rows, p10-p90). A TD1 card's first row read unsurely throughout
 * (`IDSUR` read `1090R`) has none of its own. Undefined where no row has one.
 */
export function borrowedModel(models: readonly (HeightModel | undefined)[]): HeightModel | undefined {
  const own = models.filter((m): m is HeightModel => m !== undefined);
  if (own.length === 0) return undefined;
  const levels = own.map((m) => m.level);
  const spread = Math.max(...levels) - Math.min(...levels);
  return { level: median(levels), noise: Math.max(BORROWED_NOISE, ...own.map((m) => m.noise), spread) };
}

/**
 * The least noise of a borrowed level (cap heights): rows of one zone were seen to sit up to
 * 0.05 apart (a TD1 card's first row above its other two), which a borrowed level must not
 * take for a letter standing as tall as a digit.
 */
const BORROWED_NOISE = 0.05;

/** The most a cell's height may count against a candidate, in nats: a glyph's top is one measurement. */
export const HEIGHT_NATS = 5;

/**
 * Log-likelihood of each candidate from the cell's top, relative to the likeliest, at least
 * -HEIGHT_NATS; 0 for the filler and any candidate with no measured template top. A chevron's
 * upper arm tops out under the cap line, but weighed by it the filler moved names' K both ways
 * (on fresh seed 1351011459, one K read as a filler mended, two broken), so the height leaves
 * the filler against the likeliest glyph as it found it.
 */
export function heightLogLikelihoods(top: number, model: HeightModel, expected: Float64Array, candidates: readonly string[]): Map<string, number> {
  const raw = new Map<string, number>();
  for (const c of candidates) {
    const want = expected[MRZ_ALPHABET.indexOf(c)]!;
    if (c === '<' || !Number.isFinite(want)) continue;
    const z = (top - model.level - want) / model.noise;
    raw.set(c, -0.5 * z * z);
  }
  const best = Math.max(...raw.values());
  const out = new Map<string, number>();
  for (const c of candidates) out.set(c, raw.has(c) ? Math.max(-HEIGHT_NATS, raw.get(c)! - best) : 0);
  return out;
}

function median(v: readonly number[]): number {
  if (v.length === 0) return NaN;
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
