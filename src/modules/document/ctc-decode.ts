/** Greedy CTC decoding of a recogniser's per-timestep class probabilities. */

/** Class 0 is the CTC blank in PaddleOCR's recognisers. */
export const BLANK = 0;

export interface CtcChar {
  /** Class index (1-based into the dictionary). */
  cls: number;
  /** First and last timestep the character held the argmax. */
  t0: number;
  t1: number;
  /** Highest probability of the class over its run. */
  prob: number;
  /** Runner-up classes at the peak timestep, most likely first (only from the allowed set). */
  alternatives: { cls: number; prob: number }[];
}

/** A line's output: T timesteps of C class probabilities, row-major. */
export interface CtcMatrix {
  probs: Float32Array;
  steps: number;
  classes: number;
}

/**
 * Argmax per timestep, repeats merged, blanks dropped. With `allowed`, only those
 * classes (and the blank) compete: reading an MRZ, a '<' that the full Chinese
 * dictionary would call '«' or 'く' is forced into the MRZ alphabet.
 */
export function ctcGreedy(m: CtcMatrix, allowed?: readonly number[], keepAlternatives = 0): CtcChar[] {
  const out: CtcChar[] = [];
  const candidates = allowed ? [BLANK, ...allowed] : undefined;
  let prev = BLANK;
  let cur: CtcChar | undefined;
  for (let t = 0; t < m.steps; t++) {
    const base = t * m.classes;
    let best = BLANK;
    let bestP = -1;
    if (candidates) {
      for (const c of candidates) {
        const p = m.probs[base + c]!;
        if (p > bestP) {
          bestP = p;
          best = c;
        }
      }
    } else {
      for (let c = 0; c < m.classes; c++) {
        const p = m.probs[base + c]!;
        if (p > bestP) {
          bestP = p;
          best = c;
        }
      }
    }
    if (best !== BLANK && best === prev && cur) {
      cur.t1 = t;
      if (bestP > cur.prob) {
        cur.prob = bestP;
        if (keepAlternatives) cur.alternatives = runnersUp(m, base, best, candidates, keepAlternatives);
      }
    } else if (best !== BLANK) {
      cur = { cls: best, t0: t, t1: t, prob: bestP, alternatives: keepAlternatives ? runnersUp(m, base, best, candidates, keepAlternatives) : [] };
      out.push(cur);
    }
    prev = best;
  }
  return out;
}

function runnersUp(m: CtcMatrix, base: number, best: number, candidates: readonly number[] | undefined, k: number): { cls: number; prob: number }[] {
  const pool = candidates ?? Array.from({ length: m.classes }, (_, i) => i);
  const scored: { cls: number; prob: number }[] = [];
  for (const c of pool) {
    if (c === BLANK || c === best) continue;
    scored.push({ cls: c, prob: m.probs[base + c]! });
  }
  scored.sort((a, b) => b.prob - a.prob);
  return scored.slice(0, k);
}

/** Mean character probability, the line confidence PaddleOCR reports (0 for an empty line). */
export function meanProb(chars: CtcChar[]): number {
  if (chars.length === 0) return 0;
  return chars.reduce((s, c) => s + c.prob, 0) / chars.length;
}
