import type { CtcChar, CtcMatrix } from './ctc-decode.js';
import { bestShift, fillerTemplate, type CellRef, type FillerTemplate, type RowCells } from './filler-glyph.js';
import { inkOf } from './glyph-cells.js';
import type { LineImage } from './line-crop.js';
import { estimateCells, type LineRead } from './mrz-slots.js';
import { WIDTH_STEP } from './text-recognizer.js';

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

/** Page x of a decoded character: its centre timestep mapped across the crop's span. */
function pageX(r: SpanRead, c: { t0: number; t1: number }): number {
  return r.from + (((c.t0 + c.t1) / 2 + 0.5) / r.matrix.steps) * (r.to - r.from);
}

/** Page x of each glyph a crop decoded. */
function glyphXs(r: SpanRead): number[] {
  return r.read.chars.filter((c) => c.prob >= GLYPH_PROB).map((c) => pageX(r, c));
}

/** A read with the pixels of its crop. */
export interface SpanCrop extends SpanRead {
  line: LineImage;
}

/** A character decoded at least this surely is an exemplar of the document's filler, or (any other) a counter-example. */
const EXEMPLAR_SURE = 0.9;

/**
 * How clearly a character won: its probability against its rival's (see CtcChar.rival), or its
 * probability where there is none. The recogniser's whole dictionary shares a chevron's
 * probability with look-alikes no MRZ holds (0.55-0.8 on a sharp 31-pixel visa whose rival
 * MRZ character held 0.02-0.07), so a zone's padding decoded to no sure filler and the walk past
 * its rows' boxes (fillerRunEnd) had no template.
 */
function sureness(c: CtcChar): number {
  return c.rival === undefined ? c.prob : c.prob / (c.prob + c.rival);
}

/** The crop's cells, addressed by page x (the cell centred there), `pitchX` page pixels wide. */
function cellsByPageX(r: SpanCrop, pitchX: number): RowCells {
  const columnsPerX = (r.matrix.steps * WIDTH_STEP) / (r.to - r.from);
  return { ink: inkOf(r.line.data, r.line.width, r.line.height), centre: (x) => (x - r.from) * columnsPerX, pitch: pitchX * columnsPerX };
}

/** A filler template with the correlation from which a cell matches it. */
export type ToldFiller = FillerTemplate & { threshold: number };

/** The zone's filler (filler-glyph.ts) from the characters its rows' own reads decoded surely; undefined when it cannot be told from the rest. */
export function zoneFiller(reads: SpanCrop[], pitchX: number): ToldFiller | undefined {
  const fillers: CellRef[] = [];
  const others: CellRef[] = [];
  for (const r of reads) {
    const cells = cellsByPageX(r, pitchX);
    const xs = r.read.chars.map((c) => pageX(r, c));
    r.read.chars.forEach((c, i) => {
      if (sureness(c) >= EXEMPLAR_SURE) (r.read.text[i] === '<' ? fillers : others).push([cells, xs[i]!]);
    });
  }
  const filler = fillerTemplate(fillers, others);
  return filler?.threshold === undefined ? undefined : { ...filler, threshold: filler.threshold };
}

/** Horizontal shifts (in pitches) a cell past the read's end is tried at: the pitch's error grows over the cells walked. */
const WALK_SHIFTS = [-0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3];
/** Cells in a row that may fail to match before a run of fillers is taken to have ended (one faint filler). */
const MISSES_ALLOWED = 1;

/**
 * Page x of the last cell of the run of the zone's filler that goes on from `from`, a glyph's
 * centre, cell by cell at `pitchX` through whichever crop holds each cell whole; undefined when
 * the next cell is no filler. The recogniser reads a crop of padding alone, with no text in it,
 * poorly (as nothing, or as `AAAA` and `4444` below the sureness of a glyph): past the end of a
 * row's box the padding of a 44-character zone went unseen, and the zone was read as 36 wide.
 */
export function fillerRunEnd(from: number, crops: SpanCrop[], pitchX: number, filler: ToldFiller): number | undefined {
  const cells = crops.map((c) => ({ c, cells: cellsByPageX(c, pitchX) }));
  let end: number | undefined;
  let misses = 0;
  // Each filler found places the next cell a pitch past it: a small error in the pitch, or a
  // perspective view that narrows the cells along the row, would otherwise carry the walk off the glyphs.
  for (let x = from + pitchX; misses <= MISSES_ALLOWED; x += pitchX) {
    const holder = cells.find(({ c }) => x - pitchX / 2 >= c.from && x + pitchX / 2 <= c.to);
    if (!holder) break;
    const { s, shift } = bestShift(holder.cells, x, filler.template, WALK_SHIFTS);
    if (s >= filler.threshold) {
      x += shift * pitchX;
      end = x;
      misses = 0;
    } else misses++;
  }
  return end;
}

/**
 * How many cells a row spans at `pitchX`: from its first glyph in the row's own read to its
 * last glyph in that read or in the read past its end (`tail`, cut on from the row's end at
 * the same pitch), or to the last filler of the run that goes on from there when that run
 * reaches a 44-character row's width (`filler`, see fillerRunEnd). Undefined when the row
 * read no glyph, or when its glyphs run on to the end of what could be read (the page's edge,
 * a tile's edge) before a 44-character row would end: such a row was cut by the picture, not
 * by its layout, and its length says nothing of the zone's width (a tile's edge cut an MRV-A
 * visa at 36 characters, which then passed every check of an MRV-B).
 */
export function rowExtent(own: SpanRead | SpanCrop, tail: SpanRead | SpanCrop | undefined, pitchX: number, filler?: ToldFiller): number | undefined {
  const xs = glyphXs(own);
  if (xs.length === 0) return undefined;
  const lastGlyph = Math.max(xs.at(-1)!, ...(tail ? glyphXs(tail) : []));
  const crops = [own, tail].filter((c): c is SpanCrop => c !== undefined && 'line' in c);
  const runEnd = filler ? fillerRunEnd(lastGlyph, crops, pitchX, filler) : undefined;
  // A run of fillers counts only where it carries the row into a 44-character zone's width. One
  // that stops short says nothing sure: a faint or blurred filler ends it as blank card would,
  // and such a run, counted, made a 44-wide visa a sure 36 with no warning.
  const last = runEnd !== undefined && (runEnd - xs[0]!) / pitchX + 1 >= WIDE_FROM ? runEnd : lastGlyph;
  const seenTo = Math.max(own.to, tail?.to ?? -Infinity);
  const wideEnd = xs[0]! + (WIDE_CELLS - 0.5) * pitchX;
  if (seenTo < wideEnd && last > seenTo - EDGE_CELLS * pitchX) return undefined;
  return (last - xs[0]!) / pitchX + 1;
}

/** Each row's extent (rowExtent) from its own read and the read past its end, with the zone's own filler looked for in both. */
export function zoneRowExtents(owns: SpanCrop[], tails: SpanCrop[] | undefined, pitchX: number): (number | undefined)[] {
  const filler = zoneFiller(owns, pitchX);
  return owns.map((r, i) => rowExtent(r, tails?.[i], pitchX, filler));
}

/** The widest zone's row, in cells. */
const WIDE_CELLS = 44;
/** A row whose last glyph lies within this many cells of the end of what was read runs on past it. */
const EDGE_CELLS = 1.5;

/**
 * What the rows' extents say of a two-row zone's width, and whether they agree on it. Both
 * rows reaching past the midpoint make it 44, both ending before it, past where their padding
 * starts (PADDING_SEEN_FROM), 36. One row found out past the midpoint makes it 44, unsure,
 * whatever the other measured: the rows of a zone are one length, and the two ways of being
 * wrong are not alike. A row of 44 often measures 36 (its faint padding past the box unseen,
 * or the read past its end off the row on a sloped card); a row of 36 measures past 40 only
 * where that read found sure glyphs or the zone's own filler, cell by cell, on blank card or
 * background. Over three fresh seeds (1,300 generated documents, 731 reads of 36-wide zones) no
 * row of a 36-wide zone measured past 40 cells, and the 7 zones with one row past 40 and the
 * other near 36 were all 44 wide; read as 36, MRV-A visas came back as MRV-B. With no row past
 * the midpoint the zone is read as measured (36), unsure.
 */
export function widthFromExtents(extents: (number | undefined)[]): { width: 36 | 44; sure: boolean } {
  if (extents.every((e) => e !== undefined && e >= WIDE_FROM)) return { width: 44, sure: true };
  if (extents.every((e) => e !== undefined && e >= PADDING_SEEN_FROM && e <= NARROW_TO)) return { width: 36, sure: true };
  const wide = extents.some((e) => e !== undefined && e >= WIDE_FROM);
  return { width: wide ? 44 : 36, sure: false };
}

/**
 * Extents (cells) from which a row is 44 wide, and up to which it is 36: either side of the
 * midpoint, 40, with one cell between them left unsure. On generated documents rows of 44
 * measured 43.7-44.1 and rows of 36 measured 32.8-38.6 (a glyph lost at the end, the pitch's
 * error over the row).
 */
const WIDE_FROM = 40.5;
const NARROW_TO = 39.5;
/**
 * A row measured shorter than this saw none of its padding: a two-row zone's checked data ends
 * at its 28th cell, and a visa's second row is fillers after it, which fade first in a blurred
 * or dim capture. It says nothing of where the zone ends, so it cannot make 36 sure (an MRV-A
 * whose second row read 27.8 cells and names row 36.9 was taken for an MRV-B without a warning).
 */
const PADDING_SEEN_FROM = 30;
