import type { Point, Quad } from './geometry.js';
import type { LineRead } from './mrz-slots.js';
import { WIDTH_STEP } from './text-recognizer.js';

/**
 * Rows whose read lost their first character. The rows of a machine-readable zone start at
 * one left edge. When the recogniser decodes nothing for a row's first glyph (a TD1 names row,
 * `CEIRD<<<…` read `EIRD<<<…`), nothing in the row's own read tells that a character is missing
 * at its start rather than a margin narrower than usual (its assignment weighs the timing of its
 * first character only weakly, see mrz-slots.ts): the row is placed one position early, a filler
 * is added at its end, and every re-read of its spans is placed by that timing. Where two sibling
 * rows draw the left edge, the row's start can be checked against it. Only in a three-row zone:
 * in a perspective view the edge is not at right angles to the rows, so one sibling alone
 * cannot tell a skewed edge from a lost character (a TD2 card so "lost" its names row's first
 * letter, and a reading 44 wide past the card's edge won).
 */

/** A row's crop and the timing its read was aligned with (position k centred at timestep first + k * pitch). */
export interface TimedCrop {
  quad: Quad;
  cropWidth: number;
  first: number;
  pitch: number;
  /** How many characters its read decoded. */
  decoded: number;
}

/**
 * A row whose position 0 sits at least this many cells right of the zone's left edge starts
 * one character late. Half a cell is what the timing fits of rows read alike differ by at most;
 * a whole cell is a character.
 */
const LATE_FROM = 0.7;
/** Nor more than this: a row placed that far from its siblings was cut from elsewhere, and its start says nothing of a lost character. */
const LATE_TO = 1.5;

/** The crop's centre line, left to right, and its length. */
function axis(q: Quad): { from: Point; unit: Point; length: number } {
  const [tl, tr, br, bl] = q;
  const from = { x: (tl.x + bl.x) / 2, y: (tl.y + bl.y) / 2 };
  const to = { x: (tr.x + br.x) / 2, y: (tr.y + br.y) / 2 };
  const length = Math.hypot(to.x - from.x, to.y - from.y) || 1;
  return { from, unit: { x: (to.x - from.x) / length, y: (to.y - from.y) / length }, length };
}

/** Distance along the row's crop, in page pixels from its left end, of timestep t. */
const alongAt = (r: TimedCrop, t: number) => (((t + 0.5) * WIDTH_STEP) / r.cropWidth) * axis(r.quad).length;

/** The page point of the row's timestep t. */
function pointAt(r: TimedCrop, t: number): Point {
  const a = axis(r.quad);
  const d = alongAt(r, t);
  return { x: a.from.x + a.unit.x * d, y: a.from.y + a.unit.y * d };
}

/** Where the line through p and q crosses the row's axis, as a distance along its crop; undefined when they are parallel. */
function crossing(r: TimedCrop, p: Point, q: Point): number | undefined {
  const a = axis(r.quad);
  const e = { x: q.x - p.x, y: q.y - p.y };
  const det = a.unit.x * e.y - a.unit.y * e.x;
  if (Math.abs(det) < 1e-9) return undefined;
  // a.from + s * a.unit = p + u * e, solved for s.
  return ((p.x - a.from.x) * e.y - (p.y - a.from.y) * e.x) / det;
}

/**
 * Per row of a three-row zone, the timestep its position 0 sits at on the zone's left edge (the
 * line through the starts of the two rows that decoded most), for the third row only, when its
 * own timing put it LATE_FROM to LATE_TO cells right of that edge: it lost its first character.
 * Undefined for every other row, and for every row of a zone of fewer rows.
 */
export function lostStarts(rows: TimedCrop[]): (number | undefined)[] {
  const none = rows.map(() => undefined);
  if (rows.length !== 3) return none;
  const order = [0, 1, 2].sort((a, b) => rows[b]!.decoded - rows[a]!.decoded);
  const [j, k, i] = order as [number, number, number];
  const r = rows[i]!;
  const edge = crossing(r, pointAt(rows[j]!, rows[j]!.first), pointAt(rows[k]!, rows[k]!.first));
  const cell = alongAt(r, r.first + r.pitch) - alongAt(r, r.first);
  if (edge === undefined || !(cell > 0)) return none;
  const late = (alongAt(r, r.first) - edge) / cell;
  if (late < LATE_FROM || late > LATE_TO) return none;
  const out: (number | undefined)[] = [...none];
  out[i] = (edge / axis(r.quad).length) * (r.cropWidth / WIDTH_STEP) - 0.5;
  return out;
}

/**
 * The zone's rows with a row that lost its first character carrying the left edge's start in
 * its read (`LineRead.startAt`), so that every stage that aligns it (cells, glyphs, re-reads)
 * places it alike; undefined when no row lost its start. `timed` is each row's first alignment.
 */
export function heldToLeftEdge<R extends { quad: Quad; cropWidth: number; read: LineRead }>(rows: R[], timed: { first: number; pitch: number }[]): R[] | undefined {
  const starts = lostStarts(rows.map((r, i) => ({ quad: r.quad, cropWidth: r.cropWidth, first: timed[i]!.first, pitch: timed[i]!.pitch, decoded: r.read.chars.length })));
  if (starts.every((s) => s === undefined)) return undefined;
  return rows.map((r, i) => (starts[i] === undefined ? r : { ...r, read: { ...r.read, startAt: starts[i] } }));
}
