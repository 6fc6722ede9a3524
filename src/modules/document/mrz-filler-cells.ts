import { bestShift, fillerTemplate, glyphTemplate, type CellRef, type RowCells } from './filler-glyph.js';
import { inkOf } from './glyph-cells.js';
import { classAllows, MRZ_ALPHABET, type FormatDef } from './mrz-format.js';
import type { GlyphRow } from './mrz-glyphs.js';
import type { SlotDist } from './mrz-repair.js';
import { alignLineTimed } from './mrz-slots.js';
import { rowsLostInStretches } from './mrz-row-windows.js';
import { WIDTH_STEP } from './text-recognizer.js';

/**
 * Fillers told by the document's own filler glyph. In a font the OCR-B templates do not fit
 * (Liberation Mono, FreeMono) the recogniser reads runs of a names row's padding as `AAAA…`,
 * and on a blurred print an optional-data field's padding as `4222…`; no check digit covers
 * either. The document's own filler (filler-glyph.ts), its sure fillers cut at the row's
 * timing: a cell that matches it as well as they do, and better than any sure letter or digit
 * does, is a filler. The evidence only lifts the filler where the position's class admits it;
 * it never turns a filler into something else.
 */

const FILLER = MRZ_ALPHABET.length - 1;
/** A read this sure, where a character was decoded, makes an exemplar (a filler) or a counter-example (anything else). */
const EXEMPLAR_SURE = 0.9;
/** Probability the filler is given where a cell matches the template. */
const LIFT = 0.7;

const argmax = (d: SlotDist) => d.reduce((b, v, i) => (v > d[b]! ? i : b), 0);

/** What the stage saw, for the trace. */
export interface FillerReport {
  fillers: number;
  fillerLow?: number;
  otherHigh?: number;
  lifted: string[];
  /** Cells that matched the filler yet matched the document's own glyph of their character better. */
  kept: string[];
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
  const cut: ((RowCells & { owner: (number | undefined)[] }) | undefined)[] = slots.map((_, li) => {
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
  const fillers: CellRef[] = [];
  const others: CellRef[] = [];
  const otherChars: number[] = [];
  slots.forEach((line, li) =>
    line.forEach((d, k) => {
      const r = cut[li];
      if (!r || r.owner[k] === undefined || Math.max(...d) < EXEMPLAR_SURE) return;
      const c = argmax(d);
      if (c === FILLER) fillers.push([r, k]);
      else {
        others.push([r, k]);
        otherChars.push(c);
      }
    }),
  );
  if (report) report.fillers = fillers.length;
  const filler = fillerTemplate(fillers, others);
  if (!filler) return slots;
  const { template, fillerLow, otherHigh, threshold } = filler;
  if (report) Object.assign(report, { fillerLow, otherHigh });
  if (threshold === undefined) return slots;
  const ownGlyph = ownGlyphs(others, otherChars, template, threshold);
  return slots.map((line, li) => {
    const r = cut[li];
    if (!r) return line;
    return line.map((d, k) => {
      if (argmax(d) === FILLER && d[FILLER]! >= LIFT) return d;
      if (!classAllows(format.classes[li]![k]!, '<')) return d;
      const asFiller = bestShift(r, k, template).s;
      if (asFiller < threshold) return d;
      // A K is a filler with a stem: the filler's likeness alone cannot tell the two apart
      // (a K's cell scores as high as the sure fillers' low end), its own letter can.
      const own = ownGlyph(argmax(d));
      if (own && bestShift(r, k, own).s >= asFiller) {
        report?.kept.push(`${li}:${k}:${MRZ_ALPHABET[argmax(d)]}`);
        return d;
      }
      const o = new Float32Array(d.length);
      for (let i = 0; i < o.length; i++) o[i] = d[i]! * (1 - LIFT);
      o[FILLER] = o[FILLER]! + LIFT;
      report?.lifted.push(`${li}:${k}:${MRZ_ALPHABET[argmax(d)]}`);
      return o;
    });
  });
}

/**
 * The document's own glyph of each character it read surely, from the sure cells that do not
 * match its filler (a padding run read surely as K or A is no exemplar of the letter); built
 * on first use.
 */
function ownGlyphs(others: CellRef[], chars: number[], filler: Float32Array, threshold: number): (c: number) => Float32Array | undefined {
  const made = new Map<number, Float32Array | undefined>();
  return (c) => {
    if (!made.has(c)) {
      const cells = others.filter(([r, k], i) => chars[i] === c && bestShift(r, k, filler).s < threshold);
      made.set(c, cells.length ? glyphTemplate(cells) : undefined);
    }
    return made.get(c);
  };
}
