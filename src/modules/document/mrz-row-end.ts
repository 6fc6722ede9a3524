import type { CtcMatrix } from './ctc-decode.js';
import { estimateCells, type LineRead } from './mrz-slots.js';

/**
 * Where a zone's rows end. The detector often stops an MRZ row's box inside its trailing
 * fillers (a run of thin chevrons is faint text), so a 44-character zone can decode to
 * 36 or fewer characters on both rows; an MRV-A visa cut so passes every check of an
 * MRV-B (which has no composite digit to fail). What the crop held cannot tell them
 * apart; what lies past it can: a 44-character zone goes on at the rows' pitch with
 * fillers or data, a 36-character one ends in blank card or background. A row's extent is
 * measured in cells, from its first glyph to its last, at the rows' pitch.
 */

/** A row's read and the stretch of page x its crop spanned. */
export interface SpanRead {
  matrix: CtcMatrix;
  read: LineRead;
  from: number;
  to: number;
}

/**
 * The zone's pitch along x (page pixels a character) and how many cells its crops over
 * [x1, x2] hold: the median of the rows whose pitch can be told (a names row of merged
 * fillers has too few adjacent characters to tell it); undefined when none can.
 */
export function zonePitch(reads: { matrix: CtcMatrix; read: LineRead }[], x1: number, x2: number): { cells: number; pitchX: number } | undefined {
  const told: { cells: number; pitchX: number }[] = [];
  for (const r of reads) {
    const cells = estimateCells(r.matrix, r.read);
    if (cells !== undefined && cells >= 2) told.push({ cells, pitchX: ((r.matrix.steps - 6) / (cells - 1)) * ((x2 - x1) / r.matrix.steps) });
  }
  if (told.length === 0) return undefined;
  return told.sort((a, b) => a.pitchX - b.pitchX)[Math.floor(told.length / 2)]!;
}

/** A character decoded at least this surely counts as a glyph (a background's texture decodes to weak guesses). */
const GLYPH_PROB = 0.5;

/** Page x of each glyph a crop decoded (its centre timestep mapped across the crop's span). */
function glyphXs(r: SpanRead): number[] {
  return r.read.chars.filter((c) => c.prob >= GLYPH_PROB).map((c) => r.from + (((c.t0 + c.t1) / 2 + 0.5) / r.matrix.steps) * (r.to - r.from));
}

/**
 * How many cells a row spans at `pitchX`: from its first glyph in the row's own read to its
 * last glyph in that read or in the read past its end (`tail`, cut on from the row's end at
 * the same pitch). Undefined when the row read no glyph, or when its glyphs run on to the end
 * of what could be read (the page's edge, a tile's edge) before a 44-character row would end:
 * such a row was cut by the picture, not by its layout, and its length says nothing of the
 * zone's width (a tile's edge cut an MRV-A visa at 36 characters, which then passed every
 * check of an MRV-B).
 */
export function rowExtent(own: SpanRead, tail: SpanRead | undefined, pitchX: number): number | undefined {
  const xs = glyphXs(own);
  if (xs.length === 0) return undefined;
  const last = Math.max(xs.at(-1)!, ...(tail ? glyphXs(tail) : []));
  const seenTo = Math.max(own.to, tail?.to ?? -Infinity);
  const wideEnd = xs[0]! + (WIDE_CELLS - 0.5) * pitchX;
  if (seenTo < wideEnd && last > seenTo - EDGE_CELLS * pitchX) return undefined;
  return (last - xs[0]!) / pitchX + 1;
}

/** The widest zone's row, in cells. */
const WIDE_CELLS = 44;
/** A row whose last glyph lies within this many cells of the end of what was read runs on past it. */
const EDGE_CELLS = 1.5;

/**
 * What the rows' extents say of a two-row zone's width, and whether they agree on it. Both
 * rows reaching past the midpoint make it 44, both ending before it, past where their padding
 * starts (PADDING_SEEN_FROM), 36. A row found out to
 * 44 cells beside one whose reads stopped short of any layout's end (blurred or faint there,
 * or read off the row on a sloped card) still makes it 44, unsure: the rows of a zone are one
 * length, and a row that ends nowhere a layout ends is no evidence. Anything else is read as
 * measured (36), unsure.
 */
export function widthFromExtents(extents: (number | undefined)[]): { width: 36 | 44; sure: boolean } {
  if (extents.every((e) => e !== undefined && e >= WIDE_FROM)) return { width: 44, sure: true };
  if (extents.every((e) => e !== undefined && e >= PADDING_SEEN_FROM && e <= NARROW_TO)) return { width: 36, sure: true };
  const wide = extents.some((e) => e !== undefined && e >= WIDE_FROM);
  const endsAt36 = extents.some((e) => e !== undefined && e > SHORT_OF_36 && e <= NARROW_TO);
  return { width: wide && !endsAt36 ? 44 : 36, sure: false };
}

/**
 * Extents (cells) from which a row is 44 wide, and up to which it is 36: either side of the
 * midpoint, 40, with one cell between them left unsure. On generated documents rows of 44
 * measured 43.7-44.1 and rows of 36 measured 32.8-38.6 (a glyph lost at the end, the pitch's
 * error over the row).
 */
const WIDE_FROM = 40.5;
const NARROW_TO = 39.5;
/** A row measured shorter than this ended before any two-row layout's end (three cells' margin under 36). */
const SHORT_OF_36 = 33;
/**
 * A row measured shorter than this saw none of its padding: a two-row zone's checked data ends
 * at its 28th cell, and a visa's second row is fillers after it, which fade first in a blurred
 * or dim capture. It says nothing of where the zone ends, so it cannot make 36 sure (an MRV-A
 * whose second row read 27.8 cells and names row 36.9 was taken for an MRV-B without a warning).
 */
const PADDING_SEEN_FROM = 30;
