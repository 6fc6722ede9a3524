import { MRZ_ALPHABET, namesRowField, pickFormat, type FormatDef } from './mrz-format.js';
import { namesUncertain, type RereadCut } from './mrz-reread.js';
import type { SlotDist } from './mrz-repair.js';
import { topCertainty } from './mrz-confidence.js';

/**
 * Choosing between two readings of a zone's names row. Names carry no check digit, so when the
 * grown crops' reads disagree on them nothing downstream can settle the question; a second
 * crop of the row, cut no taller than the detected row, often reads it surely where the grown
 * crops take in the print above and read a names row's fillers as K, S or E
 * (`P<D<<HIERDVAASY<<MAJ<<<` read `PKD<KHIERDVAASYK<MAJSS<` in every grown crop and right in
 * the tight one). The reading the recogniser is clearly surer of is kept, as a whole row: its
 * positions were aligned together, and a row spliced from two crops at a field boundary can
 * put one character in two places.
 */

/** Mean certainty, p / (p + runner-up), of the most probable character over a row. */
export function rowSureness(row: SlotDist[]): number {
  let sum = 0;
  for (const d of row) sum += topCertainty(d);
  return row.length ? sum / row.length : 0;
}

/**
 * How much surer (mean certainty over the row) the other reading must be before it replaces
 * the fused one: one crop's read is sharper than an average of three, and is not preferred
 * on that alone.
 */
const SURER_BY = 0.05;

/**
 * Whether a reading of the names row could still replace `row` (see withSurerNames): only when
 * `row` is at most 1 - SURER_BY sure, since no reading is surer than 1. `touched` are the
 * positions other reads will still be fused into ('every': the whole row; none by default).
 * Each of those can fall to 0.5 at the least (the first read's character stays in the
 * average, and a rival cannot overtake it by more than it holds); the others keep their
 * certainty. This leaves out the tight names read where it cannot change the answer.
 */
export function surerNamesPossible(row: SlotDist[], touched: ReadonlySet<number> | 'every' = new Set()): boolean {
  let least = 0;
  row.forEach((d, k) => {
    if (touched !== 'every' && !touched.has(k)) least += topCertainty(d);
    else if (Math.max(...d) > 0) least += 0.5;
  });
  // The margin covers rounding in the two sums compared (no reading's mean exceeds 1 by more).
  return row.length === 0 || least / row.length <= 1 - SURER_BY + 1e-9;
}

/**
 * The zone's distributions with the names row taken from `alt` (that row read another way,
 * aligned to the same length) when the recogniser was clearly surer of it there.
 */
export function withSurerNames(format: FormatDef, slots: SlotDist[][], alt: SlotDist[] | undefined): SlotDist[][] {
  const names = namesRowField(format);
  const line = names?.line;
  if (!names || line === undefined || !alt || alt.length !== slots[line]?.length) return slots;
  if (rowSureness(alt) < rowSureness(slots[line]!) + SURER_BY) return slots;
  // A names field ends in padding unless the names fill it: a reading that lost the padding
  // (fillers read surely as C in a crop of another font) is not preferred to one that has it.
  // Letters and the filler compete there (a digit is no name character).
  const endsPadded = (row: SlotDist[]) => {
    const d = row[names.end - 1]!;
    return d.slice(10, FILLER).every((p) => p <= d[FILLER]!);
  };
  if (endsPadded(slots[line]!) && !endsPadded(alt)) return slots;
  return slots.map((r, li) => (li === line ? alt : r));
}

const FILLER = MRZ_ALPHABET.length - 1;

/** The names row of a zone whose names the first read left a character uncertain in (see namesUncertain). */
export function namesLineInDoubt(rows: number, length: number, slots: SlotDist[][]): number | undefined {
  const format = pickFormat(rows, length, slots);
  return namesUncertain(format, slots) ? namesRowField(format)?.line : undefined;
}

/** The positions of row `line` the second look fuses other reads into ('every' when it reads the row whole). */
export function touchedPositions(cuts: RereadCut[], line: number): Set<number> | 'every' {
  const out = new Set<number>();
  for (const c of cuts) {
    if (c.line !== line) continue;
    if (!c.span) return 'every';
    for (let k = c.span.inner.start; k <= c.span.inner.end; k++) out.add(k);
  }
  return out;
}
