import type { LineRead } from './mrz-slots.js';
import { innerOf, REREAD_CONTEXT, spanQuad, type RereadCut, type RowSpan } from './mrz-reread.js';
import type { Quad } from './geometry.js';

/**
 * Rows the recogniser lost whole stretches of, read again in short windows.
 *
 * PP-OCRv4 now and then outputs blanks over most of a long, clean MRZ row: a TD1 row
 * `IDSYRR987041956<<<<<<<<<<<<<<<` decoded as `109229804195`, a visa's second row as
 * `020612220210`, the same crop every time and at both of the other passes' scales (they
 * read the row whole too). The same pixels cut into pieces of 10-20 characters read right.
 * A row like that is told by its blanks: decoded characters one pitch apart leave under a
 * pitch of blank between them, and a run of merged fillers is one long character, not a
 * blank; a stretch of several pitches with no character at all is text the recogniser lost.
 * Such a row is read again in overlapping windows placed by a sibling row's timing (the
 * zone's rows share their pitch and start, and are cut over the same span), and its first
 * read is not fused in.
 */

/** Cells of blank, summed over the row, from which a row counts as lost in stretches (a clean row leaves under 2; a TD1 row that lost `I`, `GEO` and a digit, 4.2). */
export const LOST_CELLS = 4;
/** Characters whose read counts in a window (its inner part); REREAD_CONTEXT more on each side are read for context. */
export const WINDOW_CELLS = 12;

/** A row's first read with the timing it was aligned with (first centre and pitch, in timesteps) and its crop's width. */
export interface TimedRow {
  read: LineRead;
  cropWidth: number;
  first: number;
  pitch: number;
}

/**
 * Cells of text the read left blank: for each pair of decoded characters, the blank between
 * them beyond one pitch, in pitches, summed (`pitch` in this read's timesteps), except beside
 * a filler; with `span` (the centres of the row's first and last cells), the blank before the
 * first character and after the last as well (a row whose read stops at `…041956` before 15
 * fillers lost them).
 */
export function lostCells(read: LineRead, pitch: number, span?: { first: number; last: number }): number {
  if (!(pitch > 0)) return 0;
  let lost = 0;
  const chars = read.chars;
  if (span && chars.length > 0) {
    // Before the first character and after the last, up to the row's first and last cells.
    if (read.text[0] !== '<') lost += Math.max(0, (chars[0]!.t0 - span.first) / pitch - 0.5);
    if (read.text[chars.length - 1] !== '<') lost += Math.max(0, (span.last - chars[chars.length - 1]!.t1) / pitch - 0.5);
  }
  for (let i = 1; i < chars.length; i++) {
    // Blank beside a filler is most likely a run of fillers the recogniser merged in part (it
    // often does, in a names row's padding); the stretches it loses are letters and digits.
    if (read.text[i] === '<' || read.text[i - 1] === '<') continue;
    lost += Math.max(0, (chars[i]!.t0 - chars[i - 1]!.t1) / pitch - 1);
  }
  return lost;
}

/** The rows of a zone that lost stretches of text, and the row whose timing places their windows. */
export interface RowsLost {
  lost: number[];
  /** Index of the reference row in the zone. */
  reference: number;
  /** The reference row and its timing. */
  timing: TimedRow;
}

/**
 * The rows of a zone that lost stretches of text, and the row whose timing places their
 * windows (the one that decoded most characters, which must not have lost any). Empty when
 * no sibling can lend its timing.
 */
export function rowsLostInStretches(rows: TimedRow[], length: number): RowsLost {
  let reference = 0;
  rows.forEach((r, i) => {
    if (r.read.chars.length > rows[reference]!.read.chars.length) reference = i;
  });
  const lost = rows.flatMap((r, i) => (rowLostCells(rows, reference, i, length) >= LOST_CELLS ? [i] : []));
  // A reference that lost text itself cannot place the others' windows.
  return { lost: lost.includes(reference) ? [] : lost, reference, timing: rows[reference]! };
}

/** lostCells of row `i`, at the reference row's timing (crops cut over the same span differ only in scale). */
export function rowLostCells(rows: TimedRow[], reference: number, i: number, length?: number): number {
  const ref = rows[reference]!;
  const r = rows[i]!;
  const scale = r.cropWidth / ref.cropWidth;
  // Timestep t of the reference is centred at crop column (t + 0.5) * WIDTH_STEP.
  const at = (t: number) => (t + 0.5) * scale - 0.5;
  const span = length === undefined ? undefined : { first: at(ref.first), last: at(ref.first + (length - 1) * ref.pitch) };
  return lostCells(r.read, ref.pitch * scale, span);
}

/**
 * Row `line` (quad `quad`) cut into windows of WINDOW_CELLS characters with `context` more on
 * each side, placed by the reference row's timing, twice: the second set shifted by half a
 * window. A window can lose its text too (`10<<<<<<<<<<<<` read as `010`), rarely both
 * windows that hold a character.
 */
export function windowCuts(line: number, quad: Quad, reference: TimedRow, length: number, context = REREAD_CONTEXT): RereadCut[] {
  const cuts: RereadCut[] = [];
  for (const phase of [0, WINDOW_CELLS / 2])
    for (let start = phase; start < length; start += WINDOW_CELLS) {
      const span: RowSpan = { start: Math.max(0, start - context), end: Math.min(length - 1, start + WINDOW_CELLS - 1 + context) };
      const { quad: q, u0, u1 } = spanQuad(quad, reference, reference.cropWidth, length, span);
      cuts.push({ line, quad: q, span: { span, u0, u1, inner: innerOf(span, length, context) } });
      // A window that reaches the row's end counts up to it (its context is the row's end).
      if (span.end === length - 1) break;
    }
  return cuts;
}
