import { ctcGreedy, keptColumns, type CtcChar, type CtcMatrix } from './ctc-decode.js';
import { MRZ_ALPHABET } from './mrz-format.js';
import type { SlotDist } from './mrz-repair.js';

/**
 * Maps a recognised MRZ line onto its fixed number of character positions.
 *
 * The MRZ font is monospaced, so a character's timestep tells which position it
 * holds. Greedy CTC merges repeated fillers ("<<<<" read as "<<") and now and then
 * drops or adds a character; fitting position = (timestep - offset) / pitch to the
 * decoded characters and reading the gaps straight from the probability matrix
 * recovers a line of exactly `length` characters with a distribution per position.
 */

export interface LineRead {
  /** Greedy text over the MRZ alphabet, before alignment. */
  text: string;
  /** Mean character probability. */
  confidence: number;
  chars: CtcChar[];
  /**
   * The timestep the row's first position is centred at, where a sibling row tells it and the
   * row's own read lost its first character (mrz-row-start.ts): its alignment then holds to it.
   */
  startAt?: number;
}

/** Class indices of the MRZ alphabet in the recogniser's dictionary (blank = 0). */
export function mrzClassIndices(dictionary: string[]): number[] {
  return [...MRZ_ALPHABET].map((c) => {
    const i = dictionary.indexOf(c);
    if (i < 0) throw new Error(`recogniser dictionary lacks MRZ character ${c}`);
    return i;
  });
}

/** Greedy CTC over the MRZ alphabet only. */
export function readMrzLine(m: CtcMatrix, classIdx: number[]): LineRead {
  const chars = ctcGreedy(m, classIdx);
  const toChar = new Map(classIdx.map((cls, i) => [cls, MRZ_ALPHABET[i]!]));
  const text = chars.map((c) => toChar.get(c.cls) ?? '?').join('');
  const confidence = chars.length ? chars.reduce((s, c) => s + c.prob, 0) / chars.length : 0;
  return { text, confidence, chars };
}

/** Distribution over the MRZ alphabet: per-class maximum over timesteps [t0, t1], normalised. */
export function windowDist(m: CtcMatrix, classIdx: number[], t0: number, t1: number): SlotDist {
  const d = new Float32Array(classIdx.length);
  const columns = keptColumns(m, classIdx);
  const width = m.kept.length;
  const a = Math.max(0, Math.floor(t0));
  const b = Math.min(m.steps - 1, Math.ceil(t1));
  for (let t = a; t <= b; t++) {
    for (let k = 0; k < columns.length; k++) d[k] = Math.max(d[k]!, m.keptProbs[t * width + columns[k]!]!);
  }
  let sum = 0;
  for (const v of d) sum += v;
  if (sum <= 0) {
    d.fill(0);
    d[MRZ_ALPHABET.length - 1] = 1;
    return d;
  }
  for (let k = 0; k < d.length; k++) d[k] = d[k]! / sum;
  return d;
}

/** A position's distribution and how much to trust it when fusing reads. */
export interface AlignedSlot {
  dist: SlotDist;
  /** 1 when a decoded character sits there, less when it was read from the gap between characters. */
  weight: number;
}

/** Weight of a position read from the gap between decoded characters, against 1 for a decoded one. */
export const GAP_WEIGHT = 0.3;

/** Costs of the assignment, in squared pitches of timing error (see assign). */
const COST = {
  /** A position left between two placed characters (a merged run of fillers costs little, a lost letter more). */
  gapByFiller: 0.1,
  gap: 0.4,
  /** A position before the first placed character, or after the last (trailing fillers merged into one cost little). */
  lead: 0.6,
  leadFiller: 0.2,
  tailFiller: 0.05,
  /** A decoded character left out as spurious: dearer the surer the recogniser was of it. */
  drop: 0.6,
  dropSure: 1.4,
  /** Weight of the absolute timing prior (first position near step 1.5, last 4.5 steps before the end). */
  absolute: 0.25,
  /**
   * Weight of the first position's timing where a sibling row tells it (LineRead.startAt):
   * placing the first character read one cell from it costs more than leaving a position
   * before it empty (`lead`).
   */
  sibling: 2,
};
/** How many decoded characters, and positions, one step of the assignment may skip. */
const MAX_SKIP_CHARS = 3;
const MAX_SKIP_CELLS = 8;

/**
 * Monotonic assignment of decoded characters to positions, by dynamic programming over
 * (character, position). A character's place is told by its timing relative to the
 * character placed before it (consecutive characters a pitch apart, a skipped position
 * a pitch more), not by an absolute timing prior alone: a crop whose margin is wider
 * than usual (a box drawn round the zone, a card edge, a neighbouring mark) shifts every
 * absolute time, and fitting to that shift moved a whole row one position, doubling its
 * first letter and dropping a later one to catch up. The absolute prior stays, weakly,
 * to tell a lost first character from a wide margin. Skipped positions cost little next
 * to a filler (greedy CTC merges filler runs) and more elsewhere; dropping a decoded
 * character as spurious costs more the surer the recogniser was of it.
 */
function assign(read: LineRead, length: number, steps: number, pitch: number): (number | undefined)[] {
  // A character is timed by its onset towards the one before it and by its end towards the
  // row's end: a merged run of fillers starts at its first cell and ends at its last.
  const onset = read.chars.map((c) => c.t0);
  const ends = read.chars.map((c) => c.t1);
  const n = onset.length;
  const owner: (number | undefined)[] = new Array<number | undefined>(length).fill(undefined);
  if (n === 0) return owner;
  const filler = (i: number) => read.text[i] === '<';
  const start = read.startAt === undefined ? { at: 1.5, weight: COST.absolute } : { at: read.startAt, weight: COST.sibling };
  const drop = (i: number) => COST.drop + COST.dropSure * read.chars[i]!.prob;
  const dropped = new Float64Array(n + 1); // dropped[i]: cost of dropping characters 0..i-1
  for (let i = 0; i < n; i++) dropped[i + 1] = dropped[i]! + drop(i);
  const sq = (x: number) => x * x;
  const INF = Number.POSITIVE_INFINITY;
  const cost = Array.from({ length: n }, () => new Float64Array(length).fill(INF));
  const from = Array.from({ length: n }, () => new Int32Array(length).fill(-1));
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < length; k++) {
      // Character i first placed: the characters before it dropped, the positions before it empty.
      let best = dropped[i]! + k * (filler(i) ? COST.leadFiller : COST.lead) + start.weight * sq((onset[i]! - (start.at + k * pitch)) / pitch);
      let arg = -1;
      for (let j = Math.max(0, i - MAX_SKIP_CHARS); j < i; j++) {
        const skipChars = dropped[i]! - dropped[j + 1]!;
        const gapCost = filler(i) || filler(j) ? COST.gapByFiller : COST.gap;
        for (let kk = Math.max(0, k - MAX_SKIP_CELLS); kk < k; kk++) {
          const prev = cost[j]![kk]!;
          if (prev === INF) continue;
          const c = prev + skipChars + sq((onset[i]! - onset[j]! - (k - kk) * pitch) / pitch) + (k - kk - 1) * gapCost;
          if (c < best) {
            best = c;
            arg = j * length + kk;
          }
        }
      }
      cost[i]![k] = best;
      from[i]![k] = arg;
    }
  }
  let end = { c: INF, i: 0, k: 0 };
  for (let i = 0; i < n; i++)
    for (let k = 0; k < length; k++) {
      const rest = length - 1 - k;
      const c = cost[i]![k]! + (dropped[n]! - dropped[i + 1]!) + rest * (filler(i) ? COST.tailFiller : COST.lead) + COST.absolute * sq((ends[i]! - (steps - 4.5 - rest * pitch)) / pitch);
      if (c < end.c) end = { c, i, k };
    }
  let at = end.i * length + end.k;
  while (at >= 0) {
    const i = Math.floor(at / length);
    const k = at % length;
    owner[k] = i;
    at = from[i]![k]!;
  }
  return owner;
}

/**
 * Assigns the decoded characters of a line to `length` positions and returns one
 * distribution per position. Timing prior, measured on PP-OCRv4 reads of MRZ rows
 * cut as the reader cuts them: the first character fires near timestep 1.5 and
 * the last about 4.5 steps before the end.
 */
export function alignLine(m: CtcMatrix, classIdx: number[], read: LineRead, length: number): AlignedSlot[] {
  return alignLineTimed(m, classIdx, read, length).slots;
}

/** A line aligned to its positions, with the timing fitted: position k is centred on timestep first + k * pitch. */
export interface TimedAlignment {
  slots: AlignedSlot[];
  /** Per position, the index of the decoded character placed there (undefined: read from a gap). */
  owner: (number | undefined)[];
  first: number;
  pitch: number;
}

/** alignLine, also returning the fitted timing (where the glyph classifier cuts each position's cell). */
export function alignLineTimed(m: CtcMatrix, classIdx: number[], read: LineRead, length: number): TimedAlignment {
  const chars = read.chars;
  const centers = chars.map((c) => (c.t0 + c.t1) / 2);
  let first = 1.5;
  let pitch = (m.steps - 4.5 - first) / (length - 1);
  if (chars.length === length) {
    const fit = lineFit(centers.map((c, k) => [k, c] as const));
    return { slots: chars.map((c) => ({ dist: windowDist(m, classIdx, c.t0, c.t1), weight: 1 })), owner: chars.map((_, i) => i), first: fit?.first ?? first, pitch: fit?.pitch ?? pitch };
  }
  const owner = assign(read, length, m.steps, charPitch(read) ?? pitch);
  // The timing of the positions, fitted to the placed letters and digits (a merged run of
  // fillers is centred on no one cell), where gaps are read and cells cut.
  const placed = owner.flatMap((ci, k) => (ci === undefined ? [] : [[k, ci] as const]));
  const solid = placed.filter(([, ci]) => read.text[ci] !== '<');
  const fit = lineFit((solid.length >= 2 ? solid : placed).map(([k, ci]) => [k, centers[ci]!] as const));
  if (fit) ({ first, pitch } = fit);
  const slots = owner.map((ci, k) => {
    if (ci !== undefined) return { dist: windowDist(m, classIdx, chars[ci]!.t0, chars[ci]!.t1), weight: 1 };
    const center = first + k * pitch;
    return { dist: windowDist(m, classIdx, center - pitch / 2, center + pitch / 2), weight: GAP_WEIGHT };
  });
  return { slots, owner, first, pitch };
}

/** Least-squares timestep = first + pitch * position over (position, timestep) pairs; undefined when it cannot be told. */
function lineFit(pairs: (readonly [number, number])[]): { first: number; pitch: number } | undefined {
  if (pairs.length < 2) return undefined;
  const mk = pairs.reduce((s2, [k]) => s2 + k, 0) / pairs.length;
  const mc = pairs.reduce((s2, [, c]) => s2 + c, 0) / pairs.length;
  let sxy = 0;
  let sxx = 0;
  for (const [k, c] of pairs) {
    sxy += (k - mk) * (c - mc);
    sxx += (k - mk) ** 2;
  }
  if (!(sxx > 0 && sxy > 0)) return undefined;
  const pitch = sxy / sxx;
  return { first: mc - pitch * mk, pitch };
}

/** Fewest adjacent character pairs that make a pitch estimate. */
const MIN_PAIRS = 6;

/**
 * How many character cells a row's crop holds, from its geometry: the median
 * timestep distance between adjacent decoded letters and digits (fillers are left
 * out: CTC merges their runs, so two decoded fillers may be cells apart) gives the
 * pitch, and the crop spans the line plus the margins alignLine's timing prior assumes.
 * Undefined when too few adjacent pairs were decoded to tell.
 */
export function estimateCells(m: CtcMatrix, read: LineRead): number | undefined {
  const pitch = charPitch(read);
  return pitch === undefined ? undefined : (m.steps - 6) / pitch + 1;
}

/**
 * The row's character pitch in timesteps, from adjacent decoded letters and digits
 * (fillers are left out: CTC merges their runs, so two decoded fillers may be cells
 * apart). Undefined when too few adjacent pairs were decoded to tell.
 */
function charPitch(read: LineRead): number | undefined {
  const centre = (i: number) => (read.chars[i]!.t0 + read.chars[i]!.t1) / 2;
  const gaps: number[] = [];
  for (let i = 1; i < read.chars.length; i++) {
    if (read.text[i] === '<' || read.text[i - 1] === '<') continue;
    gaps.push(centre(i) - centre(i - 1));
  }
  if (gaps.length < MIN_PAIRS) return undefined;
  // The pitch is a fraction of a timestep's multiple (3.4 steps a character is common), and
  // each gap is a whole number of steps: their median is off by up to half a step, which on
  // a 36-character row moves the estimate past 40 and turns an MRV-B into a 44-wide layout.
  // The mean of the gaps, without those that span a lost character, keeps the fraction.
  const median = [...gaps].sort((x, y) => x - y)[Math.floor(gaps.length / 2)]!;
  const kept = gaps.filter((g) => g > 0 && g < 1.5 * median);
  const pitch = kept.reduce((s, g) => s + g, 0) / Math.max(1, kept.length);
  return pitch > 0 ? pitch : undefined;
}

/** The most probable character per position (for logs and raw text). */
export function distsToText(slots: SlotDist[]): string {
  return slots
    .map((d) => {
      let best = 0;
      for (let k = 1; k < d.length; k++) if (d[k]! > d[best]!) best = k;
      return MRZ_ALPHABET[best]!;
    })
    .join('');
}

/** Per-position weighted average of several reads' distributions. */
export function fuse(reads: AlignedSlot[][]): SlotDist[] {
  return reads[0]!.map((slot, k) => {
    const out = new Float32Array(slot.dist.length);
    let total = 0;
    for (const r of reads) total += r[k]!.weight;
    for (const r of reads) for (let c = 0; c < out.length; c++) out[c] = out[c]! + (r[k]!.dist[c]! * r[k]!.weight) / total;
    return out;
  });
}
