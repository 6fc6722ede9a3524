import { inkOf, type InkPlane } from './glyph-cells.js';
import { classAllows, MRZ_ALPHABET, type FormatDef } from './mrz-format.js';
import type { GlyphRow } from './mrz-glyphs.js';
import type { SlotDist } from './mrz-repair.js';
import { alignLineTimed } from './mrz-slots.js';
import { rowsLostInStretches } from './mrz-row-windows.js';
import { normalise } from './ocrb-templates.js';
import { WIDTH_STEP } from './text-recognizer.js';

/**
 * Fillers told by the document's own filler glyph. In a font the OCR-B templates do not fit
 * (Liberation Mono, FreeMono) the recogniser reads runs of a names row's padding as `AAAA…`,
 * and on a blurred print an optional-data field's padding as `4222…`; no check digit covers
 * either. Every zone prints dozens of fillers, most of them read surely: their cells, cut at
 * the row's timing and averaged, are a template of this document's filler in its own font,
 * weight and blur. A cell that matches it as well as the sure fillers do, and better than any
 * sure letter or digit does, is a filler. The evidence only lifts the filler where the
 * position's class admits it; it never turns a filler into something else.
 */

const FILLER = MRZ_ALPHABET.length - 1;
/** A read this sure, where a character was decoded, makes an exemplar (a filler) or a counter-example (anything else). */
const EXEMPLAR_SURE = 0.9;
const MIN_FILLERS = 6;
const MIN_OTHERS = 4;
/** The sure fillers' low end (this quantile of their correlation with the template) must clear the best sure non-filler by this much. */
const MIN_SEPARATION = 0.1;
const FILLER_LOW_QUANTILE = 0.1;
/** Grid a cell is compared on: GW columns across one pitch, GH rows over the crop's height. */
const GW = 10;
const GH = 20;
/** Horizontal shifts a cell is tried at, in pitches. */
const SHIFTS = [-0.15, -0.075, 0, 0.075, 0.15];
/** Probability the filler is given where a cell matches the template. */
const LIFT = 0.7;

interface RowCells {
  ink: InkPlane;
  /** Crop column of cell k's centre, and the pitch in columns. */
  centre: (k: number) => number;
  pitch: number;
  owner: (number | undefined)[];
}

/** Cell k of a row on the grid, shifted by dx columns, zero-mean and unit norm. */
function cell(r: RowCells, k: number, dx: number): Float32Array {
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

/** The cell's best correlation with the template over small shifts, and the cell there. */
function bestShift(r: RowCells, k: number, template: Float32Array): { s: number; c: Float32Array } {
  let best: { s: number; c: Float32Array } = { s: -2, c: new Float32Array(0) };
  for (const f of SHIFTS) {
    const c = cell(r, k, f * r.pitch);
    const s = dot(c, template);
    if (s > best.s) best = { s, c };
  }
  return best;
}

function mean(cells: Float32Array[]): Float32Array {
  const m = new Float32Array(GW * GH);
  for (const c of cells) for (let i = 0; i < m.length; i++) m[i] = m[i]! + c[i]!;
  return normalise(m);
}

const argmax = (d: SlotDist) => d.reduce((b, v, i) => (v > d[b]! ? i : b), 0);

/** What the stage saw, for the trace. */
export interface FillerReport {
  fillers: number;
  fillerLow?: number;
  otherHigh?: number;
  lifted: string[];
}

/** The zone's distributions with fillers lifted where the cells match the document's own filler (the input is not changed). */
export function withFillerEvidence(format: FormatDef, rows: (GlyphRow | undefined)[], slots: SlotDist[][], classIdx: number[], report?: FillerReport): SlotDist[][] {
  const timings = slots.map((line, li) => {
    const row = rows[li];
    return row ? alignLineTimed(row.matrix, classIdx, row.read, line.length) : undefined;
  });
  // A row whose first read lost stretches of text (mrz-row-windows.ts) has no timing to cut its cells by.
  const timed = rows.flatMap((r, li) => (r && timings[li] ? [{ li, row: { read: r.read, cropWidth: r.line.width, first: timings[li].first, pitch: timings[li].pitch } }] : []));
  const lost = new Set(
    timed.length
      ? rowsLostInStretches(
          timed.map((t) => t.row),
          slots[0]!.length,
        ).lost.map((i) => timed[i]!.li)
      : [],
  );
  const cut: (RowCells | undefined)[] = slots.map((_, li) => {
    const row = rows[li];
    const timing = timings[li];
    if (!row || !timing || lost.has(li)) return undefined;
    return {
      ink: inkOf(row.line.data, row.line.width, row.line.height),
      centre: (k: number) => (timing.first + k * timing.pitch + 0.5) * WIDTH_STEP,
      pitch: timing.pitch * WIDTH_STEP,
      owner: timing.owner,
    };
  });
  const fillers: [number, number][] = [];
  const others: [number, number][] = [];
  slots.forEach((line, li) =>
    line.forEach((d, k) => {
      if (!cut[li] || cut[li].owner[k] === undefined || Math.max(...d) < EXEMPLAR_SURE) return;
      (argmax(d) === FILLER ? fillers : others).push([li, k]);
    }),
  );
  if (report) report.fillers = fillers.length;
  if (fillers.length < MIN_FILLERS || others.length < MIN_OTHERS) return slots;
  // The template: the sure fillers averaged, then each placed where it best matches that average.
  let template = mean(fillers.map(([li, k]) => cell(cut[li]!, k, 0)));
  template = mean(fillers.map(([li, k]) => bestShift(cut[li]!, k, template).c));
  const sIn = fillers.map(([li, k]) => bestShift(cut[li]!, k, template).s).sort((a, b) => a - b);
  const fillerLow = sIn[Math.floor(FILLER_LOW_QUANTILE * sIn.length)]!;
  const otherHigh = Math.max(...others.map(([li, k]) => bestShift(cut[li]!, k, template).s));
  if (report) Object.assign(report, { fillerLow, otherHigh });
  if (fillerLow - otherHigh < MIN_SEPARATION) return slots;
  const threshold = (fillerLow + otherHigh) / 2;
  return slots.map((line, li) => {
    const r = cut[li];
    if (!r) return line;
    return line.map((d, k) => {
      if (argmax(d) === FILLER && d[FILLER]! >= LIFT) return d;
      if (!classAllows(format.classes[li]![k]!, '<')) return d;
      if (bestShift(r, k, template).s < threshold) return d;
      const o = new Float32Array(d.length);
      for (let i = 0; i < o.length; i++) o[i] = d[i]! * (1 - LIFT);
      o[FILLER] = o[FILLER]! + LIFT;
      report?.lifted.push(`${li}:${k}:${MRZ_ALPHABET[argmax(d)]}`);
      return o;
    });
  });
}
