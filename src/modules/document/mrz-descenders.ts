import type { InkPlane } from './glyph-cells.js';
import { classAllows, MRZ_ALPHABET, nameSpans, type FormatDef } from './mrz-format.js';
import type { GlyphRow } from './mrz-glyphs.js';
import type { SlotDist } from './mrz-repair.js';
import { zoneRowCells, type RowCells } from './mrz-zone-cells.js';

/**
 * Ink below a row's baseline, cell by cell. No MRZ character reaches below the baseline in
 * OCR-B, and in the other monospace fonts a document may be printed in (Liberation Mono,
 * FreeMono, DejaVu Sans Mono, Courier) only the tail of a Q does: the one stroke that tells a
 * Q from an O there, and the recogniser, reading a tail-less bowl, often reads O. A cell's
 * baseline is its neighbours' (the sure characters nearest it, so a tilted or bent row keeps
 * its own), found where their ink falls to half its peak (a blur moves that point little);
 * the share of the band below it the cell's ink fills (at the row's stroke ink), less what the
 * neighbours' bands hold, is its descender. Measured against the same row's sure characters,
 * never against a font.
 */

/** A row's cells in its crop: cell k centred at crop column centre(k), one pitch wide. */
export type CellRow = Pick<RowCells, 'ink' | 'centre' | 'pitch'>;

/** The share of a cell's width whose columns are profiled (the middle, clear of its neighbours). */
const CORE = 0.7;
/** Neighbours whose bottom edge sets a cell's baseline. */
const BASE_NEIGHBOURS = 6;
/** The band below the baseline a descender is looked for in, in cap heights (a tail starts a little below the bowl; crops leave about a third of the cap height below it). */
const BAND_FROM = 0.1;
const BAND_TO = 0.3;
/** The least of that band a crop must hold below the baseline for the cell to be measured. */
const MIN_BAND = 0.1;

export interface DescenderMeasure {
  /** Per position: the filled share of the band below the baseline (undefined where the cell cannot be profiled). */
  share: (number | undefined)[];
  /** The row's cap height in crop pixels (median over the reference cells), undefined when too few. */
  cap?: number;
}

/** Rows at the crop's top and bottom taken for its background. */
const EDGE_ROWS = (height: number) => Math.max(2, Math.round(height / 12));

/** The cell's vertical ink profile over its middle columns (each row's darkest), less its own background (the lower of the crop's top and bottom rows). */
function profile(row: CellRow, k: number): Float32Array | undefined {
  const { data, width, height } = row.ink;
  const x0 = Math.max(0, Math.round(row.centre(k) - (CORE * row.pitch) / 2));
  const x1 = Math.min(width - 1, Math.round(row.centre(k) + (CORE * row.pitch) / 2));
  if (x1 - x0 < 2) return undefined;
  // Each row's darkest few columns: a stem, a diagonal and a bar all reach the stroke's ink there,
  // where a mean over the columns would dilute a thin stem below a bar.
  const p = new Float32Array(height);
  for (let y = 0; y < height; y++) {
    let a = 0;
    let b = 0;
    let c = 0;
    for (let x = x0; x <= x1; x++) {
      const v = data[y * width + x]!;
      if (v > a) [a, b, c] = [v, a, b];
      else if (v > b) [b, c] = [v, b];
      else if (v > c) c = v;
    }
    p[y] = (a + b + c) / 3;
  }
  const edge = EDGE_ROWS(height);
  let top = 0;
  let bottom = 0;
  for (let y = 0; y < edge; y++) {
    top += p[y]!;
    bottom += p[height - 1 - y]!;
  }
  const bg = Math.min(top, bottom) / edge;
  for (let y = 0; y < height; y++) p[y] = Math.max(0, p[y]! - bg);
  return p;
}

/** The first and last rows where a profile reaches half its peak, and the peak. */
function edges(p: Float32Array): { top: number; bottom: number; peak: number } | undefined {
  let peak = 0;
  for (const v of p) peak = Math.max(peak, v);
  if (peak <= 0) return undefined;
  let top = -1;
  let bottom = -1;
  for (let y = 0; y < p.length; y++)
    if (p[y]! >= peak / 2) {
      if (top < 0) top = y;
      bottom = y;
    }
  return { top, bottom, peak };
}

/** Whether the crop's middle rows hold more ink than its top and bottom (light print on a dark ground inverts the ink). */
function darkOnLight(ink: InkPlane): boolean {
  const { data, width, height } = ink;
  const edge = EDGE_ROWS(height);
  const rowMean = (y: number) => {
    let s = 0;
    for (let x = 0; x < width; x++) s += data[y * width + x]!;
    return s / width;
  };
  let middle = 0;
  let margin = 0;
  for (let y = Math.floor(height / 3); y < Math.floor((2 * height) / 3); y++) middle += rowMean(y) / Math.max(1, Math.floor((2 * height) / 3) - Math.floor(height / 3));
  for (let y = 0; y < edge; y++) margin += (rowMean(y) + rowMean(height - 1 - y)) / (2 * edge);
  return middle > margin;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};

/**
 * The descender share of every position of a row; `reference` are the positions of its sure
 * characters other than fillers (a filler sits above the baseline) and other than Q, whose
 * bottom edges give the baseline and the cap height.
 */
export function descenderShares(row: CellRow, length: number, reference: number[]): DescenderMeasure {
  if (!darkOnLight(row.ink)) return { share: new Array<number | undefined>(length).fill(undefined) };
  const profiles = Array.from({ length }, (_, k) => profile(row, k));
  const edgeOf = profiles.map((p) => (p ? edges(p) : undefined));
  const refs = reference.filter((k) => edgeOf[k]);
  if (refs.length < 3) return { share: new Array<number | undefined>(length).fill(undefined) };
  const cap = median(refs.map((k) => edgeOf[k]!.bottom - edgeOf[k]!.top + 1));
  // The row's stroke ink: a faint cell (a filler's thin strokes) is not measured against its own faint peak.
  const peak = median(refs.map((k) => edgeOf[k]!.peak));
  const nearest = (k: number) =>
    refs
      .filter((j) => j !== k)
      .sort((a, b) => Math.abs(a - k) - Math.abs(b - k))
      .slice(0, BASE_NEIGHBOURS);
  const baseOf = profiles.map((_, k) => median(nearest(k).map((j) => edgeOf[j]!.bottom)));
  // The band's filled share, below the baseline a cell's neighbours set.
  const raw = profiles.map((p, k) => {
    if (!p || !edgeOf[k] || nearest(k).length < 2) return undefined;
    const from = Math.round(baseOf[k]! + BAND_FROM * cap);
    const to = Math.min(p.length - 1, Math.round(baseOf[k]! + BAND_TO * cap));
    // A crop cut at the baseline shows no tail (nor does it to the recogniser).
    if (to - from + 1 < MIN_BAND * cap) return undefined;
    let s = 0;
    for (let y = from; y <= to; y++) s += Math.min(p[y]!, peak);
    return s / ((to - from + 1) * peak);
  });
  // Less what the neighbours hold in their own bands: the next row's capitals or a pattern
  // reaching into the crop fill every cell's band alike.
  const share = raw.map((r, k) => {
    const near = nearest(k).flatMap((j) => (raw[j] === undefined ? [] : [raw[j]]));
    return r === undefined || near.length < 2 ? undefined : r - median(near);
  });
  return { share, cap };
}

const Q = MRZ_ALPHABET.indexOf('Q');
const FILLER = MRZ_ALPHABET.length - 1;
/** A read this sure, where a character was decoded, is a reference cell (its bottom edge sets the baseline). */
const REFERENCE_SURE = 0.9;
/**
 * The share of the band below the baseline a cell must fill, beyond its neighbours', to hold a
 * tail. Measured on the cells of 190 generated documents (a development seed): a Q's tail fills
 * 0.21-0.38 of it in DejaVu Sans Mono, 0.37-0.90 in FreeMono and Liberation Mono; 190 Os at most
 * 0.11, in any font;
 * OCR-B's Q, its tail inside the bowl, fills none. A cell beside a tail (FreeMono's reaches into
 * the next cell) can fill more than the tail's own: a cell is lifted only where its share is
 * the highest of its own and its neighbours'.
 */
const TAIL_SHARE = 0.2;
/** Probability the Q is given where a cell read as its look-alike holds a tail. */
const LIFT = 0.7;

const argmax = (d: SlotDist) => d.reduce((b, v, i) => (v > d[b]! ? i : b), 0);

/**
 * The zone's distributions with Q lifted where a names cell read as O (or 0) holds ink below the
 * baseline (the input is not changed). A Q's tail is the one thing that tells it from an O in
 * most fonts, and no other MRZ character has one; in OCR-B, which has none, nothing changes.
 * Only the names are weighed: they carry no check digit to settle a Q, where a number's check
 * digit does, and where an O in another field (a TD1's optional data, row 3's ink below it) was
 * once lifted wrongly on a generated card.
 */
export function withDescenderEvidence(format: FormatDef, rows: (GlyphRow | undefined)[], slots: SlotDist[][], classIdx: number[], lifted?: string[]): SlotDist[][] {
  const names = nameSpans(format);
  const inNames = (li: number, k: number) => names.some((sp) => sp.line === li && k >= sp.start && k < sp.end);
  const cut = zoneRowCells(rows, slots, classIdx);
  return slots.map((line, li) => {
    if (!names.some((sp) => sp.line === li)) return line;
    const r = cut[li];
    if (!r || !line.some((d) => LOOK_ALIKES.includes(argmax(d)))) return line;
    const reference = line.flatMap((d, k) => (r.owner[k] !== undefined && Math.max(...d) >= REFERENCE_SURE && argmax(d) !== FILLER && argmax(d) !== Q ? [k] : []));
    const { share } = descenderShares(r, line.length, reference);
    return line.map((d, k) => {
      const top = argmax(d);
      const s = share[k];
      if (!LOOK_ALIKES.includes(top) || !inNames(li, k) || !classAllows(format.classes[li]![k]!, 'Q') || s === undefined || s < TAIL_SHARE) return d;
      if ((share[k - 1] ?? -1) >= s || (share[k + 1] ?? -1) >= s) return d;
      const o = new Float32Array(d.length);
      for (let i = 0; i < o.length; i++) o[i] = d[i]! * (1 - LIFT);
      o[Q] = o[Q]! + LIFT;
      lifted?.push(`${li}:${k}:${MRZ_ALPHABET[top]}`);
      return o;
    });
  });
}

/** What a Q without its tail is read as. */
const LOOK_ALIKES = [MRZ_ALPHABET.indexOf('O'), MRZ_ALPHABET.indexOf('0')];
