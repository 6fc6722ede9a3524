import type { InkPlane } from './glyph-cells.js';
import { normalise } from './ocrb-templates.js';

/**
 * The document's own filler glyph as a template. Every zone prints dozens of fillers, most of
 * them read surely: their cells, cut from the row's crop and averaged, are a template of this
 * document's filler in its own font, weight and blur. A cell matches it as well as the sure
 * fillers do, and better than any sure letter or digit does, or it does not. Used to tell
 * fillers the recogniser misread (mrz-filler-cells.ts) and fillers past where a row's read
 * ended (mrz-row-end.ts): a crop of padding alone, with no text in it, is read poorly by the
 * recogniser, which was trained on text.
 */

/** Grid a cell is compared on: GW columns across one pitch, GH rows over the crop's height. */
const GW = 10;
const GH = 20;
/** Horizontal shifts a cell is tried at, in pitches. */
const NEAR_SHIFTS = [-0.15, -0.075, 0, 0.075, 0.15];
const MIN_FILLERS = 6;
const MIN_OTHERS = 4;
/** The sure fillers' low end (this quantile of their correlation with the template) must clear the best sure non-filler by this much. */
const MIN_SEPARATION = 0.1;
const FILLER_LOW_QUANTILE = 0.1;

/** Cells of one crop: cell k is centred at crop column `centre(k)`, `pitch` columns wide. */
export interface RowCells {
  ink: InkPlane;
  centre: (k: number) => number;
  pitch: number;
}

/** Cell k of a row on the grid, shifted by dx columns, zero-mean and unit norm. */
function gridCell(r: RowCells, k: number, dx: number): Float32Array {
  const out = new Float32Array(GW * GH);
  const left = r.centre(k) - r.pitch / 2 + dx;
  const { data, width, height } = r.ink;
  for (let gy = 0; gy < GH; gy++) {
    const y = Math.min(height - 1, Math.max(0, Math.floor(((gy + 0.5) * height) / GH)));
    for (let gx = 0; gx < GW; gx++) {
      const x = Math.min(width - 1, Math.max(0, Math.floor(left + ((gx + 0.5) * r.pitch) / GW)));
      out[gy * GW + gx] = data[y * width + x]!;
    }
  }
  return normalise(out);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The cell's best correlation with the template over `shifts` (in pitches), the cell there and its shift. */
export function bestShift(r: RowCells, k: number, template: Float32Array, shifts: readonly number[] = NEAR_SHIFTS): { s: number; c: Float32Array; shift: number } {
  let best: { s: number; c: Float32Array; shift: number } = { s: -2, c: new Float32Array(0), shift: 0 };
  for (const shift of shifts) {
    const c = gridCell(r, k, shift * r.pitch);
    const s = dot(c, template);
    if (s > best.s) best = { s, c, shift };
  }
  return best;
}

function mean(cells: Float32Array[]): Float32Array {
  const m = new Float32Array(GW * GH);
  for (const c of cells) for (let i = 0; i < m.length; i++) m[i] = m[i]! + c[i]!;
  return normalise(m);
}

/** A cell of some crop. */
export type CellRef = [RowCells, number];

/** The average of cells of one glyph, each placed where it best matches their first average. */
export function glyphTemplate(cells: CellRef[]): Float32Array {
  const first = mean(cells.map(([r, k]) => gridCell(r, k, 0)));
  return mean(cells.map(([r, k]) => bestShift(r, k, first).c));
}

export interface FillerTemplate {
  template: Float32Array;
  /** The sure fillers' low end and the best sure non-filler's correlation with the template. */
  fillerLow: number;
  otherHigh: number;
  /** The correlation from which a cell matches the filler; undefined when the two did not separate. */
  threshold?: number;
}

/**
 * The template of the document's filler from its sure fillers, placed where each best matches
 * their average, with its sure letters and digits as counter-examples; undefined when there are
 * too few of either to tell.
 */
export function fillerTemplate(fillers: CellRef[], others: CellRef[]): FillerTemplate | undefined {
  if (fillers.length < MIN_FILLERS || others.length < MIN_OTHERS) return undefined;
  const template = glyphTemplate(fillers);
  const sIn = fillers.map(([r, k]) => bestShift(r, k, template).s).sort((a, b) => a - b);
  const fillerLow = sIn[Math.floor(FILLER_LOW_QUANTILE * sIn.length)]!;
  const otherHigh = Math.max(...others.map(([r, k]) => bestShift(r, k, template).s));
  return { template, fillerLow, otherHigh, threshold: fillerLow - otherHigh < MIN_SEPARATION ? undefined : (fillerLow + otherHigh) / 2 };
}
