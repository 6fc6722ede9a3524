import { GAP_WEIGHT, windowDist, type AlignedSlot, type LineRead, type TimedAlignment } from './mrz-slots.js';
import type { CtcMatrix } from './ctc-decode.js';
import { MRZ_ALPHABET, namesRowField, pickFormat, type FormatDef } from './mrz-format.js';
import { parseMrz, type CheckOutcome } from './mrz-parser.js';
import { repairMrz, type SlotDist } from './mrz-repair.js';
import { WIDTH_STEP } from './text-recognizer.js';
import type { Point, Quad } from './geometry.js';
import { topCertainty, UNCERTAIN_BELOW } from './mrz-confidence.js';

/**
 * The second look at a zone's row, cut to the characters in doubt. Reading every row in doubt
 * whole, twice, is about half of a damaged document's request on a 2-core box, though most
 * such rows hold one to a few doubtful characters. The recogniser's cost grows with its input's width (a 1,200-pixel row
 * 115 ms of CPU, 300 pixels 27 ms), so reading a few characters with their neighbours
 * costs a fraction of the row; the row's first read says where each character sits.
 */

/** Positions [start, end] of a row (inclusive) read again, with `context` of them read only to be cut cleanly. */
export interface RowSpan {
  start: number;
  end: number;
}

/**
 * A character read with less probability than this, or less certainty (mrz-confidence.ts: p
 * against the runner-up), is read again: also the trigger for re-reading the names (namesUncertain) and
 * the threshold of their warnings.
 */
export const REREAD_BELOW = UNCERTAIN_BELOW;
/**
 * In the data of a failing check, a character read with less certainty than this is a suspect
 * too: one of them is wrong, and the recogniser is often fairly sure of a wrong digit.
 */
export const CHECK_SUSPECT_BELOW = 0.95;
/** Neighbours read on each side of a doubtful character (the recogniser reads a character better among others). */
export const REREAD_CONTEXT = 2;
/** When the spans would cover more than this share of a row, the row is read whole. */
export const WHOLE_ROW_SHARE = 0.6;

const FILLER = MRZ_ALPHABET.length - 1;

const best = (d: SlotDist): number => {
  let b = 0;
  for (let k = 1; k < d.length; k++) if (d[k]! > d[b]!) b = k;
  return b;
};

/**
 * The positions of row `line` that need a second look: characters read with little
 * probability, positions the first read held no character for (filled from the gap between
 * its characters) unless the gap is a filler (greedy CTC merges runs of fillers), and for a
 * failing check its digit and the suspects in its data (see CHECK_SUSPECT_BELOW), or, when it
 * has none, every character of its data that no holding check covers. Undefined when the row
 * must be read whole: it decoded to more characters than the layout holds.
 */
export function doubtfulPositions(format: FormatDef, slots: SlotDist[][], line: number, alignment: Pick<TimedAlignment, 'owner'>, decoded: number, checks: CheckOutcome[]): number[] | undefined {
  const row = slots[line]!;
  if (decoded > row.length) return undefined;
  const out = new Set<number>();
  row.forEach((d, k) => {
    if (Math.max(...d) < REREAD_BELOW || topCertainty(d) < REREAD_BELOW) out.add(k);
    else if (alignment.owner[k] === undefined && best(d) !== FILLER) out.add(k);
  });
  // Positions in the data or digit of a check that holds: a misread there would most likely break it.
  const held = new Set<number>();
  for (const outcome of checks) {
    const def = format.checks.find((c) => c.name === outcome.name);
    if (!def) return undefined;
    if (!outcome.valid) continue;
    for (const span of def.data) if (span.line === line) for (let k = span.start; k < span.end; k++) held.add(k);
    if (def.digit.line === line) held.add(def.digit.pos);
  }
  for (const outcome of checks) {
    if (outcome.valid) continue;
    const def = format.checks.find((c) => c.name === outcome.name)!;
    const onRow = def.digit.line === line || def.data.some((s) => s.line === line);
    if (!onRow) continue;
    const suspects: number[] = [];
    for (const span of def.data) {
      if (span.line !== line) continue;
      for (let k = span.start; k < span.end; k++) if (topCertainty(row[k]!) < CHECK_SUSPECT_BELOW) suspects.push(k);
    }
    const anySuspect = def.data.some((s) => slots[s.line]!.slice(s.start, s.end).some((d) => topCertainty(d) < CHECK_SUSPECT_BELOW));
    if (!anySuspect && topCertainty(slots[def.digit.line]![def.digit.pos]!) >= CHECK_SUSPECT_BELOW) {
      // Every character of the check read surely: the wrong one is among those no holding
      // check covers (a composite failing beside holding field checks points at the optional
      // data or its own digit), and all of them are read again.
      for (const span of def.data) if (span.line === line) for (let k = span.start; k < span.end; k++) if (!held.has(k)) suspects.push(k);
    }
    for (const k of suspects) out.add(k);
    if (def.digit.line === line) out.add(def.digit.pos);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * Doubtful positions grown by `context` on each side and merged into spans (two spans whose
 * contexts touch become one); undefined when they would cover more than WHOLE_ROW_SHARE of
 * the row, which is then read whole.
 */
export function spansFor(positions: number[], length: number, context = REREAD_CONTEXT): RowSpan[] | undefined {
  const spans: RowSpan[] = [];
  for (const k of positions) {
    const start = Math.max(0, k - context);
    const end = Math.min(length - 1, k + context);
    const last = spans[spans.length - 1];
    if (last && start <= last.end + 1) last.end = Math.max(last.end, end);
    else spans.push({ start, end });
  }
  const covered = spans.reduce((s, sp) => s + sp.end - sp.start + 1, 0);
  return covered > WHOLE_ROW_SHARE * length ? undefined : spans;
}

/** Fraction of the crop's width where timestep `t` of its recogniser output is centred. */
const stepToU = (t: number, cropWidth: number): number => ((t + 0.5) * WIDTH_STEP) / cropWidth;

/**
 * The part of a row's quad holding positions [start, end], from the first read's timing
 * (`first`, `pitch`: position k is centred on timestep first + k * pitch of a crop
 * `cropWidth` pixels wide): cut half a pitch before the first and after the last, and at
 * the crop's own ends for a span touching the row's ends. Returns the quad and the span's
 * place along the row ([u0, u1] as fractions of the row's length).
 */
export function spanQuad(quad: Quad, timing: Pick<TimedAlignment, 'first' | 'pitch'>, cropWidth: number, length: number, span: RowSpan): { quad: Quad; u0: number; u1: number } {
  const { first, pitch } = timing;
  const u0 = span.start === 0 ? 0 : Math.max(0, stepToU(first + (span.start - 0.5) * pitch, cropWidth));
  const u1 = span.end === length - 1 ? 1 : Math.min(1, stepToU(first + (span.end + 0.5) * pitch, cropWidth));
  const lerp = (a: Point, b: Point, u: number): Point => ({ x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u });
  const [tl, tr, br, bl] = quad;
  return { quad: [lerp(tl, tr, u0), lerp(tl, tr, u1), lerp(bl, br, u1), lerp(bl, br, u0)], u0, u1 };
}

/**
 * A span's read placed on the row's positions, by the timing the span was cut with (not fitted
 * again: a few characters hold too few pairs to fit a pitch, and the cut is known): position k
 * of the span is expected at its place along the row, mapped into this crop; the decoded
 * character nearest that place within half a pitch gives its distribution, else the
 * recogniser's output there does, trusted less (as alignLine reads a gap). Positions outside
 * the span's inner part (its context, cut near the crop's edges) get weight 0, so fusing leaves
 * them to the other reads.
 */
export function alignSpan(
  m: CtcMatrix,
  classIdx: number[],
  read: LineRead,
  cropWidth: number,
  row: { first: number; pitch: number; cropWidth: number; length: number },
  cut: { span: RowSpan; u0: number; u1: number; inner: RowSpan },
): AlignedSlot[] {
  const { span, u0, u1, inner } = cut;
  const out: AlignedSlot[] = Array.from({ length: row.length }, () => ({ dist: new Float32Array(classIdx.length), weight: 0 }));
  const width = u1 - u0;
  if (!(width > 0)) return out;
  // Row timestep -> this crop's timestep, through the place along the row.
  const toHere = (t: number) => ((stepToU(t, row.cropWidth) - u0) / width) * (cropWidth / WIDTH_STEP) - 0.5;
  // The pitch in this crop's timesteps: the crop holds the fraction `width` of the row in `cropWidth` columns.
  const pitch = (row.pitch * cropWidth) / (width * row.cropWidth);
  const centres = read.chars.map((c) => (c.t0 + c.t1) / 2);
  for (let k = inner.start; k <= inner.end; k++) {
    if (k < span.start || k > span.end) continue;
    const at = toHere(row.first + k * row.pitch);
    let owner = -1;
    for (let i = 0; i < centres.length; i++) if (Math.abs(centres[i]! - at) <= pitch / 2 && (owner < 0 || Math.abs(centres[i]! - at) < Math.abs(centres[owner]! - at))) owner = i;
    out[k] =
      owner >= 0 ? { dist: windowDist(m, classIdx, read.chars[owner]!.t0, read.chars[owner]!.t1), weight: 1 } : { dist: windowDist(m, classIdx, at - pitch / 2, at + pitch / 2), weight: GAP_WEIGHT };
  }
  return out;
}

/** The positions of a span whose reads count: all but its context, except where the context is the row's end. */
export function innerOf(span: RowSpan, length: number, context = REREAD_CONTEXT): RowSpan {
  return { start: span.start === 0 ? 0 : Math.min(span.start + context, span.end), end: span.end === length - 1 ? length - 1 : Math.max(span.end - context, span.start) };
}

/** One crop of a row read again: the whole row, or a span of it with its place along the row. */
export interface RereadCut {
  line: number;
  quad: Quad;
  span?: { span: RowSpan; u0: number; u1: number; inner: RowSpan };
}

/**
 * What of row `line` the other passes read: the spans around its doubtful characters, nothing
 * when it has none (a row decoded short only where greedy CTC merged fillers), or the whole row
 * when its doubts cannot be told (no parse, a row decoded too long) or would cover most of it.
 */
export function rereadCuts(
  format: FormatDef,
  slots: SlotDist[][],
  line: number,
  row: { quad: Quad; cropWidth: number; read: LineRead },
  timed: TimedAlignment,
  length: number,
  checks: CheckOutcome[] | undefined,
): RereadCut[] {
  const positions = checks ? doubtfulPositions(format, slots, line, timed, row.read.text.length, checks) : undefined;
  const spans = positions ? spansFor(positions, length) : undefined;
  if (!spans) return [{ line, quad: row.quad }];
  return spans.map((span) => {
    const { quad, u0, u1 } = spanQuad(row.quad, timed, row.cropWidth, length, span);
    return { line, quad, span: { span, u0, u1, inner: innerOf(span, length) } };
  });
}

/** Whether some character of the names field was read with little certainty. */
export function namesUncertain(format: FormatDef, lines: SlotDist[][]): boolean {
  const names = namesRowField(format);
  if (!names) return false;
  const line = lines[names.line];
  if (!line) return false;
  for (let pos = names.start; pos < names.end; pos++) {
    const d = line[pos];
    if (d && Math.max(...d) < REREAD_BELOW) return true;
  }
  return false;
}

/**
 * The rows of a zone the other passes read again (their indices, none when the first pass
 * settles the zone), from each row's decoded length and the zone's distributions: rows
 * decoded to the wrong length, rows holding a failing check digit or the data it covers, and
 * the names row when a name character is uncertain (names carry no check digit); every row
 * when the zone does not parse. A row of the right length whose checks hold and whose names
 * are sure has nothing for the other reads to settle, and reading it again cost a recogniser
 * round on a 2-core box (a TD3's two rows in two passes are four runs for two workers, where
 * its failing second row alone is two). Same seed, 100 generated documents: 88 fully correct
 * against 87 reading every row again.
 */
export function rowsToReadAgain(decodedLengths: number[], length: number, slots: SlotDist[][]): number[] {
  const every = decodedLengths.map((_, i) => i);
  const rows = new Set<number>(every.filter((i) => decodedLengths[i] !== length));
  const format = pickFormat(slots.length, length, slots);
  const parsed = parseMrz(repairMrz(format, slots).lines);
  if (!parsed) return every;
  for (const outcome of parsed.checks) {
    if (outcome.valid) continue;
    const def = format.checks.find((c) => c.name === outcome.name);
    if (!def) return every;
    rows.add(def.digit.line);
    for (const span of def.data) rows.add(span.line);
  }
  const names = namesRowField(format);
  if (names && namesUncertain(format, slots)) rows.add(names.line);
  return [...rows].sort((a, b) => a - b);
}
