import type { CtcMatrix } from './ctc-decode.js';
import { charScore, fitRow, inkOf, sampleCell, scoreCandidates, untoldAlt, type Anchor, type InkPlane } from './glyph-cells.js';
import type { LineImage } from './line-crop.js';
import { borrowedModel, fontStep, gridTop, heightLogLikelihoods, heightModel, MIN_STEP, rowReferences, showsStep, templateTops, type HeightModel } from './mrz-digit-height.js';
import { classAllows, MRZ_ALPHABET, type FormatDef } from './mrz-format.js';
import { CONFUSABLE, type SlotDist } from './mrz-repair.js';
import { alignLineTimed, type LineRead } from './mrz-slots.js';
import type { GlyphTemplates } from './ocrb-templates.js';
import { WIDTH_STEP } from './text-recognizer.js';

/**
 * Pixel evidence for a zone's characters. PP-OCR reads an
 * OCR-B K in a name at 0.5-0.65 with the filler close behind, and names carry no
 * check digit to settle it; the glyph's cell, cut at the row's fitted pitch and
 * correlated with templates rendered in the zone's font (OCR-B, or a common monospace
 * face where the zone is printed in one), tells a K's stem from a filler's empty
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
/** Sure letters and digits a row needs before it can tell the zone's font; with fewer, the zone is taken to be OCR-B. */
const MIN_FONT_GLYPHS = 4;
/**
 * How much more surely (mean log-likelihood per character, in nats) another font's templates must
 * name a row's sure characters than OCR-B's before the zone is taken to be in it. On the 515 zones
 * that reached the stage among 600 documents of two calibration seeds (1396337475, 1334209896),
 * 321 of 323 OCR-B zones stayed OCR-B; of 192 zones in the other fonts, 164 were told right, 23
 * stayed OCR-B (as every such zone did before) and 5 were taken for another of them.
 */
const FONT_MARGIN = 0.15;
/**
 * A row OCR-B's templates name at least this surely (mean log-likelihood per character) with 90%
 * of its anchors right is taken to be OCR-B without fitting the other fonts, which doubled the
 * stage's time. A rival would have to name the characters above -0.15 to clear the margin; on the
 * two calibration seeds no rival was chosen in any such zone (268 of 508 zones, 0 choices lost).
 */
const STANDARD_SURE = -0.3;
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
  /** The font the zone was judged to be printed in. */
  font?: string;
  rows: { fit: number; agreement: number; changed: string[] }[];
}

/**
 * Re-weighs the positions of a zone's distributions by their cells' correlation with the
 * templates of the zone's font (zoneFont), row by row where the font explains the row.
 * Returns new distributions (the input is not changed).
 *
 * The font is the document's, not a row's: a Liberation Mono names row can fit OCR-B well
 * (its sure letters named right 96 times in 100) while the same card's other rows show the
 * templates misnaming one sure character in five, and there the OCR-B Q, whose tail the other
 * fonts draw elsewhere, lost to the O it resembles. So every row is fitted in the zone's font,
 * and a zone with any row the templates fit (fit >= MIN_FIT) yet misname beyond MIN_AGREEMENT
 * (a font no template knows, or one taken for another) takes no glyph evidence in any row. A
 * row fitted below MIN_FIT (cut wrong, too blurred) says nothing about the font.
 */
export async function applyGlyphEvidence(fonts: GlyphTemplates[], format: FormatDef, rows: GlyphRow[], slots: SlotDist[][], classIdx: number[], report?: GlyphReport): Promise<SlotDist[][]> {
  const prepared: (RowAnchors | undefined)[] = [];
  for (let li = 0; li < slots.length; li++) prepared.push(await anchorZoneRow(rows[li], slots[li]!, classIdx, format.classes[li]!));
  const chosen = await zoneFont(fonts, prepared);
  if (!chosen) return slots;
  const { templates, fitted: chosenFit } = chosen;
  if (report) report.font = templates.family;
  const fits: (RowFit | undefined)[] = [];
  for (const p of prepared) fits.push(p === chosenFit?.row ? chosenFit : await fitAnchored(templates, p));
  for (const f of fits) if (f) report?.rows.push(f.report);
  const otherFont = fits.some((f) => f && !f.row.loose && f.fitted.fit >= MIN_FIT && f.fitted.agreement < MIN_AGREEMENT);
  if (otherFont) return slots;
  // A loosely anchored row is weighed only in a zone another row showed to be in the font,
  // and only where the templates name its own anchors as surely as a sure row's.
  const known = fits.some((f) => f && !f.row.loose && f.fitted.fit >= MIN_FIT);
  const usable = fits.map((f) => (f && f.fitted.fit >= MIN_FIT && (!f.row.loose || (known && f.fitted.agreement >= MIN_AGREEMENT)) ? f : undefined));
  const heights = zoneHeights(templates, format, usable, slots);
  const out: SlotDist[][] = [];
  for (let li = 0; li < slots.length; li++) {
    const f = usable[li];
    out.push(f ? await reweighRow(templates, format, f, slots[li]!, li, heights[li]) : slots[li]!);
  }
  return out;
}

/** A row's measured tops with its height model and its font's expected tops (mrz-digit-height.ts). */
interface RowHeights {
  tops: Float64Array;
  model: HeightModel;
  expected: Float64Array;
}

/**
 * Each row's heights (mrz-digit-height.ts) where the zone's font has a letter/digit step
 * (OCR-B, FreeMono) and no row whose sure letters and digits can tell shows the print without
 * it. A row with too few references of its own borrows the other rows' level, less surely.
 */
function zoneHeights(templates: GlyphTemplates, format: FormatDef, fits: (RowFit | undefined)[], slots: SlotDist[][]): (RowHeights | undefined)[] {
  const expected = templateTops(templates);
  const step = fontStep(expected);
  if (!(step >= MIN_STEP)) return fits.map(() => undefined);
  const rows = fits.map((f, li) => {
    if (!f) return undefined;
    const line = slots[li]!;
    const tops = Float64Array.from(line, (_, k) => gridTop(sampleCell(f.row.ink, f.fitted.geometry, k, 0, 0, true)));
    const reads = line.map((d) => {
      const top = argmax(d);
      return { c: MRZ_ALPHABET[top]!, p: d[top]! };
    });
    return { tops, refs: rowReferences(tops, expected, format.classes[li]!, reads) };
  });
  if (rows.some((r) => r && showsStep(r.refs, step) === false)) return fits.map(() => undefined);
  const models = rows.map((r) => r && heightModel(r.refs));
  const borrowed = borrowedModel(models);
  return rows.map((r, li) => {
    const model = models[li] ?? borrowed;
    return r && model ? { tops: r.tops, model, expected } : undefined;
  });
}

/**
 * The zone's font. The row with most sure letters and digits is fitted in every font, and each
 * font is scored on those characters by how much they look like its templates (their mean
 * correlation) and how surely its templates name them (labelLogLikelihood); fillers are left
 * out, being a bar in every font. OCR-B, the MRZ's font by ICAO 9303 and the first of the fonts,
 * is kept unless another font is the likest, names the characters more surely by FONT_MARGIN,
 * and explains its row by the stage's own bars (MIN_FIT, MIN_AGREEMENT): among OCR-B, Liberation
 * Mono and DejaVu Sans Mono a blurred row's scores come within a few hundredths of each other,
 * and an OCR-B zone taken for another font loses the evidence that reads it. Fitting one row in
 * every font costs a row's fit per font, not the zone's.
 */
export async function zoneFont(fonts: GlyphTemplates[], prepared: (RowAnchors | undefined)[]): Promise<{ templates: GlyphTemplates; fitted?: RowFit } | undefined> {
  const standard = fonts[0];
  if (!standard) return undefined;
  const glyphs = (p: RowAnchors) => p.anchors.filter((a) => a.c !== '<');
  let probe: RowAnchors | undefined;
  for (const p of prepared) if (p && !p.loose && (!probe || glyphs(p).length > glyphs(probe).length)) probe = p;
  if (!probe || fonts.length === 1 || glyphs(probe).length < MIN_FONT_GLYPHS) return { templates: standard };
  const own = glyphs(probe);
  const scored: (FontScore & { fitted: RowFit })[] = [];
  for (const templates of fonts) {
    const fitted = await fitAnchored(templates, probe);
    if (!fitted) continue;
    const { geometry, variant } = fitted.fitted;
    let score = 0;
    let likeness = 0;
    for (const a of own) {
      const cell = sampleCell(probe.ink, geometry, a.k, 0, 0, true);
      score += labelLogLikelihood(templates, cell, a.c, variant);
      likeness += charScore(templates, cell, a.c, variant);
    }
    scored.push({ templates, fitted, score: score / own.length, likeness: likeness / own.length, fit: fitted.fitted.fit, agreement: fitted.fitted.agreement });
    // OCR-B explains the row so well that no other font is fitted (see STANDARD_SURE).
    if (templates === standard && score / own.length > STANDARD_SURE && fitted.fitted.agreement >= MIN_AGREEMENT) break;
  }
  return pickFont(scored, standard) ?? { templates: standard };
}

/** One font's scores on the zone's surest row (zoneFont). */
export interface FontScore {
  templates: GlyphTemplates;
  /** Mean log-likelihood per character (labelLogLikelihood). */
  score: number;
  /** Mean correlation of the characters with their templates. */
  likeness: number;
  /** The row's fit in the font, and the share of its anchors the templates name right (fitRow). */
  fit: number;
  agreement: number;
}

/**
 * zoneFont's choice among the fonts scored (OCR-B, `standard`, kept unless a rival clears it):
 * the rival must also be the font the characters look most like, since a font whose letters
 * differ more from one another (FreeMono's thin serifs) names any print's letters more surely.
 * Only OCR-B and the fonts that explain the row by the stage's bars are compared: one that fails
 * them cannot be the zone's, and a bold Liberation Mono zone stayed OCR-B because DejaVu Sans
 * Mono, failing them, looked 0.002 likelier than Liberation Mono.
 */
export function pickFont<F extends FontScore>(scored: F[], standard: GlyphTemplates): F | undefined {
  const kept = scored.find((f) => f.templates === standard);
  const explains = (f: F) => f.fit >= MIN_FIT && f.agreement >= MIN_AGREEMENT;
  const likest = scored.filter((f) => f === kept || explains(f)).reduce<F | undefined>((m, f) => (!m || f.likeness > m.likeness ? f : m), undefined);
  const rival = likest && likest !== kept ? likest : undefined;
  return rival && rival.score > (kept?.score ?? -Infinity) + FONT_MARGIN ? rival : kept;
}

/**
 * How surely the templates name a cell as the character read there: the log of that character's
 * share when every character's correlation is turned into a weight at the fusion's sharpness.
 * It measures the font as a classifier of this print, not how much the print looks like it: a
 * blurred OCR-B letter correlates as well with a Courier's as with its own, but only OCR-B's
 * templates keep it clear of its look-alikes.
 */
function labelLogLikelihood(templates: GlyphTemplates, cell: Float32Array, c: string, variant: number): number {
  const own = charScore(templates, cell, c, variant);
  let sum = 0;
  for (const other of MRZ_ALPHABET) sum += Math.exp(SHARPNESS * (charScore(templates, cell, other, variant) - own));
  return -Math.log(sum);
}

/** A row's sure characters and its ink, ready to be fitted in any font. */
export interface RowAnchors {
  ink: InkPlane;
  anchors: Anchor[];
  pitch: number;
  capGuess: number;
  /** Anchored on the loosely read characters (LOOSE_ANCHOR_SURE): says nothing about the zone's font. */
  loose: boolean;
}

/** A row's cells placed by fitRow in one font, and what the weighing needs of it. */
interface RowFit {
  row: RowAnchors;
  fitted: NonNullable<ReturnType<typeof fitRow>>;
  report: GlyphReport['rows'][number];
}

/**
 * A row's sure characters; undefined for a row with too few of them. The stage is plain
 * JavaScript on the main thread (a zone read spends about 25-40 ms in it, 15% of the read,
 * choosing the font included), so it hands the event loop back before each row and each fit,
 * and every few cells while weighing, instead of holding other requests and camera frames for
 * the whole stage. The longest slice left is one row's fit.
 */
async function anchorZoneRow(row: GlyphRow | undefined, line: SlotDist[], classIdx: number[], classes: FormatDef['classes'][number]): Promise<RowAnchors | undefined> {
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
        const c = MRZ_ALPHABET[top]!;
        const alt = untoldAlt(c, classes[k]!);
        out.push({ k, c, x: stepX((ch.t0 + ch.t1) / 2), ...(alt ? { alt } : {}) });
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
  return { ink, anchors, pitch: timed.pitch * WIDTH_STEP, capGuess: capGuess(row.line), loose };
}

/** The geometry of one row's cells in one font; undefined where the font explains none of it even roughly. */
async function fitAnchored(templates: GlyphTemplates, row: RowAnchors | undefined): Promise<RowFit | undefined> {
  if (!row) return undefined;
  await yieldToLoop();
  const fitted = fitRow(row.ink, templates, row.pitch, row.capGuess, row.anchors);
  if (!fitted) return undefined;
  return { row, fitted, report: { fit: fitted.fit, agreement: fitted.agreement, changed: [] } };
}

/** One row of applyGlyphEvidence, its row fitted in the zone's font. */
async function reweighRow(templates: GlyphTemplates, format: FormatDef, rowFit: RowFit, line: SlotDist[], li: number, heights?: RowHeights): Promise<SlotDist[]> {
  await yieldToLoop();
  const { ink, anchors } = rowFit.row;
  const { fitted } = rowFit;
  const length = line.length;
  const { geometry, fit, variant } = fitted;
  const rowReport = rowFit.report;
  const trust = Math.min(1, (fit - MIN_FIT) / (FULL_FIT - MIN_FIT));
  const out = line.map((d) => new Float32Array(d));
  // Cells far beyond the outermost anchors would be placed along the row by extrapolation only:
  // their templates are not weighed.
  const from = Math.max(0, anchors[0]!.k - ANCHOR_REACH_CELLS);
  const to = Math.min(length - 1, anchors[anchors.length - 1]!.k + ANCHOR_REACH_CELLS);
  // A cell's height needs only its cap line, not its place along the row: the height evidence
  // reaches the whole row (a document number read unsurely, before the row's first anchor).
  for (let k = heights ? 0 : from; k <= (heights ? length - 1 : to); k++) {
    if (k % CELLS_PER_SLICE === CELLS_PER_SLICE - 1) await yieldToLoop();
    const inReach = k >= from && k <= to;
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
    // So is the filler wherever the field may hold one (a check digit's filler is the repair's
    // to settle): padding printed small is read as runs of K, S, C or 4 with the filler under
    // 1%, and above it joins only as the look-alike of a K, C or E; nothing else lifts it where
    // the zone's own filler cannot be learnt (mrz-filler-cells.ts needs sure fillers).
    if (cls !== 'C' && classAllows(cls, '<') && !candidates.includes('<')) candidates.push('<');
    // Beyond the anchors' reach only the height is weighed (every candidate scores alike on
    // the templates), and it says nothing of the filler.
    const weighed = inReach ? candidates : candidates.filter((c) => c !== '<');
    if (weighed.length < 2) continue;
    const scores = inReach ? scoreCandidates(ink, templates, geometry, variant, k, weighed) : new Map(weighed.map((c) => [c, 0]));
    const best = Math.max(...scores.values());
    const worst = Math.min(...scores.values());
    const cellTop = heights?.tops[k];
    const byHeight = heights && cellTop !== undefined && Number.isFinite(cellTop) ? heightLogLikelihoods(cellTop, heights.model, heights.expected, weighed) : undefined;
    if (!inReach && (!byHeight || Math.min(...byHeight.values()) > -OUT_OF_REACH_NATS)) continue;
    const o = out[k]!;
    let sum = 0;
    for (let i = 0; i < o.length; i++) {
      const c = MRZ_ALPHABET[i]!;
      const s = scores.get(c);
      o[i] = s === undefined ? d[i]! * Math.exp(SHARPNESS * trust * (worst - best)) : (d[i]! + CANDIDATE_FLOOR * trust) * Math.exp(trust * (SHARPNESS * (s - best) + (byHeight?.get(c) ?? 0)));
      sum += o[i]!;
    }
    if (sum > 0) for (let i = 0; i < o.length; i++) o[i] = o[i]! / sum;
    const before = MRZ_ALPHABET[argmax(d)]!;
    const after = MRZ_ALPHABET[argmax(o)]!;
    if (before !== after) rowReport.changed.push(`${k}:${before}>${after}`);
  }
  return out;
}

/** A cell beyond the anchors' reach is re-weighed only where its height tells its candidates apart by this much (nats). */
const OUT_OF_REACH_NATS = 1;

/** Cells scored between two hand-backs of the event loop. */
const CELLS_PER_SLICE = 8;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function argmax(d: SlotDist): number {
  let best = 0;
  for (let k = 1; k < d.length; k++) if (d[k]! > d[best]!) best = k;
  return best;
}
