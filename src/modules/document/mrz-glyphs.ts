import type { CtcMatrix } from './ctc-decode.js';
import { fitRow, inkOf, scoreCandidates, type Anchor, type InkPlane } from './glyph-cells.js';
import type { LineImage } from './line-crop.js';
import { classAllows, MRZ_ALPHABET, type FormatDef } from './mrz-format.js';
import { CONFUSABLE, type SlotDist } from './mrz-repair.js';
import { alignLineTimed, type LineRead } from './mrz-slots.js';
import type { GlyphTemplates } from './ocrb-templates.js';
import { WIDTH_STEP } from './text-recognizer.js';

/**
 * Pixel evidence for a zone's characters. PP-OCR reads an
 * OCR-B K in a name at 0.5-0.65 with the filler close behind, and names carry no
 * check digit to settle it; the glyph's cell, cut at the row's fitted pitch and
 * correlated with rendered OCR-B templates, tells a K's stem from a filler's empty
 * left half. The evidence only re-weighs the recogniser's own candidates at that
 * position (within the position's ICAO character class); check digits are applied
 * afterwards, by the repair, and stay the final word where a field has one.
 */

/** A row as one pass read it: the crop and the recogniser's output on it. */
export interface GlyphRow {
  line: LineImage;
  matrix: CtcMatrix;
  read: LineRead;
}

/** Characters the recogniser read at least this surely, where it decoded them, anchor the row's geometry. */
const ANCHOR_SURE = 0.9;
const MIN_ANCHORS = 6;
/**
 * A row with fewer sure characters (a blurred or noisy second row, often the very row whose
 * document number needs its pixels looked at) is anchored on the characters read at least this
 * surely instead; see applyGlyphEvidence for when such a row is weighed.
 */
const LOOSE_ANCHOR_SURE = 0.6;
/** Positions this far outside the anchors' stretch still get glyph evidence. */
const ANCHOR_REACH_CELLS = 3;
/**
 * How well OCR-B must explain a row's sure characters (their mean correlation with
 * their templates) before its glyph evidence is used, and the fit at which it counts
 * fully: another monospace font, or a row cut wrong, fits below and is left to the recogniser.
 */
const MIN_FIT = 0.75;
const FULL_FIT = 0.85;
/**
 * The share of sure characters the templates must name right on their own in every row the
 * templates fit before the zone's evidence is used (see applyGlyphEvidence).
 */
const MIN_AGREEMENT = 0.9;
/**
 * Sharpness of the evidence: a candidate whose best correlation is 0.1 below the
 * best's is weighed down by e^(-SHARPNESS * 0.1) at full fit.
 */
const SHARPNESS = 15;
/** Candidates per position: the recogniser's most probable admissible characters. */
const MAX_CANDIDATES = 4;
/**
 * Probability every candidate is given before the glyph evidence weighs it: the pixels can
 * lift a look-alike the recogniser all but ruled out (to where a failing check digit can
 * pick it), never past a clear reading unless the cell clearly disagrees.
 */
const CANDIDATE_FLOOR = 0.02;
/** A character this much less probable than the position's best is not a candidate (the best's look-alikes always are). */
const CANDIDATE_RATIO = 0.01;

/** Crop column of a timestep's centre: timestep t covers columns WIDTH_STEP * [t, t + 1). */
const stepX = (t: number) => (t + 0.5) * WIDTH_STEP;
/**
 * First guess of the cap height in the crop: crops are cut about 1.35 times the
 * detected row's height, and the detector's box is about a third taller than the
 * capitals. The fit scans around it.
 */
const capGuess = (line: LineImage) => line.height / 1.35 / 1.3;

/** What the glyph stage did to a zone, for the trace and the bench. */
export interface GlyphReport {
  rows: { fit: number; agreement: number; changed: string[] }[];
}

/**
 * Re-weighs the positions of a zone's distributions by their cells' correlation with the
 * OCR-B templates, row by row where OCR-B explains the row. Returns new distributions
 * (the input is not changed).
 *
 * The font is the document's, not a row's: a Liberation Mono names row can fit OCR-B well
 * (its sure letters named right 96 times in 100) while the same card's other rows show the
 * templates misnaming one sure character in five, and there the OCR-B Q, whose tail the other
 * fonts draw elsewhere, lost to the O it resembles. So every row is fitted first, and a zone
 * with any row the templates fit (fit >= MIN_FIT) yet misname beyond MIN_AGREEMENT takes no
 * glyph evidence in any row. A row fitted below MIN_FIT (cut wrong, too blurred) says nothing
 * about the font.
 */
export async function applyGlyphEvidence(templates: GlyphTemplates, format: FormatDef, rows: GlyphRow[], slots: SlotDist[][], classIdx: number[], report?: GlyphReport): Promise<SlotDist[][]> {
  const fits: (RowFit | undefined)[] = [];
  for (let li = 0; li < slots.length; li++) fits.push(await fitZoneRow(templates, rows[li], slots[li]!, classIdx));
  for (const f of fits) if (f) report?.rows.push(f.report);
  const otherFont = fits.some((f) => f && !f.loose && f.fitted.fit >= MIN_FIT && f.fitted.agreement < MIN_AGREEMENT);
  if (otherFont) return slots;
  // A loosely anchored row is weighed only in a zone another row showed to be OCR-B, and only
  // where the templates name its own anchors as surely as a sure row's.
  const ocrb = fits.some((f) => f && !f.loose && f.fitted.fit >= MIN_FIT);
  const out: SlotDist[][] = [];
  for (let li = 0; li < slots.length; li++) {
    const f = fits[li];
    const usable = f && f.fitted.fit >= MIN_FIT && (!f.loose || (ocrb && f.fitted.agreement >= MIN_AGREEMENT));
    out.push(usable ? await reweighRow(templates, format, f, slots[li]!, li) : slots[li]!);
  }
  return out;
}

/** A row's cells placed by fitRow, and what the weighing needs of it. */
interface RowFit {
  ink: InkPlane;
  anchors: Anchor[];
  fitted: NonNullable<ReturnType<typeof fitRow>>;
  /** Fitted to the loosely read anchors (LOOSE_ANCHOR_SURE): says nothing about the zone's font. */
  loose: boolean;
  report: GlyphReport['rows'][number];
}

/**
 * The geometry of one row's cells, fitted to its sure characters; undefined for a row with too
 * few of them or none that OCR-B explains even roughly. The stage is plain JavaScript on the
 * main thread (a zone read spends about 30 ms in it, 10% of the read), so it hands the event
 * loop back before the row and after its fit, and every few cells while weighing, instead of
 * holding other requests and camera frames for the whole stage. The longest slice left is one
 * row's fit.
 */
async function fitZoneRow(templates: GlyphTemplates, row: GlyphRow | undefined, line: SlotDist[], classIdx: number[]): Promise<RowFit | undefined> {
  await yieldToLoop();
  if (!row) return undefined;
  const length = line.length;
  const timed = alignLineTimed(row.matrix, classIdx, row.read, length);
  const anchorsAt = (sure: number) => {
    const out: Anchor[] = [];
    for (let k = 0; k < length; k++) {
      const d = line[k]!;
      const top = argmax(d);
      if (timed.owner[k] !== undefined && d[top]! >= sure) {
        const ch = row.read.chars[timed.owner[k]!]!;
        out.push({ k, c: MRZ_ALPHABET[top]!, x: stepX((ch.t0 + ch.t1) / 2) });
      }
    }
    return out;
  };
  let anchors = anchorsAt(ANCHOR_SURE);
  let loose = false;
  if (anchors.length < MIN_ANCHORS) {
    anchors = anchorsAt(LOOSE_ANCHOR_SURE);
    loose = true;
  }
  if (anchors.length < MIN_ANCHORS) return undefined;
  const ink = inkOf(row.line.data, row.line.width, row.line.height);
  const fitted = fitRow(ink, templates, timed.pitch * WIDTH_STEP, capGuess(row.line), anchors);
  if (!fitted) return undefined;
  return { ink, anchors, fitted, loose, report: { fit: fitted.fit, agreement: fitted.agreement, changed: [] } };
}

/** One row of applyGlyphEvidence, in a zone judged to be OCR-B, its row fitted. */
async function reweighRow(templates: GlyphTemplates, format: FormatDef, rowFit: RowFit, line: SlotDist[], li: number): Promise<SlotDist[]> {
  await yieldToLoop();
  const { ink, anchors, fitted } = rowFit;
  const length = line.length;
  const { geometry, fit, variant } = fitted;
  const rowReport = rowFit.report;
  const trust = Math.min(1, (fit - MIN_FIT) / (FULL_FIT - MIN_FIT));
  const out = line.map((d) => new Float32Array(d));
  // Cells far beyond the outermost anchors would be placed by extrapolation only: left alone.
  const from = Math.max(0, anchors[0]!.k - ANCHOR_REACH_CELLS);
  const to = Math.min(length - 1, anchors[anchors.length - 1]!.k + ANCHOR_REACH_CELLS);
  for (let k = from; k <= to; k++) {
    if ((k - from) % CELLS_PER_SLICE === CELLS_PER_SLICE - 1) await yieldToLoop();
    const d = line[k]!;
    const cls = format.classes[li]![k]!;
    const admitted = [...MRZ_ALPHABET].map((c, i) => ({ c, p: d[i]! })).filter((x) => classAllows(cls, x.c));
    admitted.sort((a, b) => b.p - a.p);
    const bestP = admitted[0]?.p ?? 0;
    const candidates = admitted.filter((x, i) => i < MAX_CANDIDATES && x.p >= bestP * CANDIDATE_RATIO).map((x) => x.c);
    // The read character's look-alikes are candidates however unlikely the recogniser found
    // them: a document number's leading O read as 0 at 0.99 fails its check digit, and the
    // repair can only pick an O that has some probability.
    const top = admitted[0]?.c;
    for (const c of top ? (CONFUSABLE[top] ?? '') : '') if (!candidates.includes(c) && classAllows(cls, c)) candidates.push(c);
    if (candidates.length < 2) continue;
    const scores = scoreCandidates(ink, templates, geometry, variant, k, candidates);
    const best = Math.max(...scores.values());
    const worst = Math.min(...scores.values());
    const o = out[k]!;
    let sum = 0;
    for (let i = 0; i < o.length; i++) {
      const s = scores.get(MRZ_ALPHABET[i]!);
      o[i] = s === undefined ? d[i]! * Math.exp(SHARPNESS * trust * (worst - best)) : (d[i]! + CANDIDATE_FLOOR * trust) * Math.exp(SHARPNESS * trust * (s - best));
      sum += o[i]!;
    }
    if (sum > 0) for (let i = 0; i < o.length; i++) o[i] = o[i]! / sum;
    const before = MRZ_ALPHABET[argmax(d)]!;
    const after = MRZ_ALPHABET[argmax(o)]!;
    if (before !== after) rowReport.changed.push(`${k}:${before}>${after}`);
  }
  return out;
}

/** Cells scored between two hand-backs of the event loop. */
const CELLS_PER_SLICE = 8;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function argmax(d: SlotDist): number {
  let best = 0;
  for (let k = 1; k < d.length; k++) if (d[k]! > d[best]!) best = k;
  return best;
}
