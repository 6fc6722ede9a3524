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
function windowDist(m: CtcMatrix, classIdx: number[], t0: number, t1: number): SlotDist {
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

const GAP_WEIGHT = 0.3;

/**
 * Monotonic assignment of decoded characters to positions whose expected
 * timesteps are first + k * pitch: dynamic programming over (character,
 * position) with squared timing error per assignment, free gaps (characters the
 * CTC merged or missed) and a one-pitch penalty for dropping a spurious character.
 */
function assign(centers: number[], length: number, first: number, pitch: number): (number | undefined)[] {
  const n = centers.length;
  const drop = pitch * pitch;
  const INF = Number.POSITIVE_INFINITY;
  // cost[i][k]: first i characters placed within the first k positions.
  const cost = Array.from({ length: n + 1 }, () => new Float64Array(length + 1).fill(INF));
  const move = Array.from({ length: n + 1 }, () => new Uint8Array(length + 1));
  cost[0]![0] = 0;
  for (let i = 0; i <= n; i++) {
    for (let k = 0; k <= length; k++) {
      const here = cost[i]![k]!;
      if (here === INF) continue;
      if (k < length && here < cost[i]![k + 1]!) {
        cost[i]![k + 1] = here; // gap at position k
        move[i]![k + 1] = 1;
      }
      if (i < n) {
        if (here + drop < cost[i + 1]![k]!) {
          cost[i + 1]![k] = here + drop; // drop character i
          move[i + 1]![k] = 2;
        }
        if (k < length) {
          const e = first + pitch * k;
          const c = here + (centers[i]! - e) ** 2;
          if (c < cost[i + 1]![k + 1]!) {
            cost[i + 1]![k + 1] = c; // character i at position k
            move[i + 1]![k + 1] = 3;
          }
        }
      }
    }
  }
  const owner: (number | undefined)[] = new Array<number | undefined>(length).fill(undefined);
  let i = n;
  let k = length;
  while (i > 0 || k > 0) {
    const m = move[i]![k]!;
    if (m === 1) k--;
    else if (m === 2) i--;
    else {
      owner[k - 1] = i - 1;
      i--;
      k--;
    }
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
  let owner = assign(centers, length, first, pitch);
  // Refit first and pitch to the assigned characters, then assign again.
  const fit = lineFit(owner.flatMap((ci, k) => (ci === undefined ? [] : [[k, centers[ci]!] as const])));
  if (fit) {
    ({ first, pitch } = fit);
    owner = assign(centers, length, first, pitch);
  }
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
  if (!(pitch > 0)) return undefined;
  return (m.steps - 6) / pitch + 1;
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
