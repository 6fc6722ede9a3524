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
  /**
   * Decoding over a restricted alphabet: the most probable other character of it (the blank
   * left out) at the timestep of `prob`, to tell how clearly the character won.
   */
  rival?: number;
}

/**
 * A line's output as the inference worker reduces it (see last-axis-reduction.ts): the
 * full matrix of T timesteps by 6,625 classes never reaches the main thread, only each
 * timestep's best class and the probabilities of the classes the reader looks at
 * individually (the blank and the MRZ alphabet).
 */
export interface CtcMatrix {
  steps: number;
  /** Per timestep, the most probable class over the whole dictionary and its probability. */
  best: Int32Array;
  bestProb: Float32Array;
  /** The classes whose probability is kept at every timestep; the blank is one of them. */
  kept: readonly number[];
  /** steps x kept.length probabilities, row-major. */
  keptProbs: Float32Array;
}

/** Positions in `m.kept` of the given classes. */
export function keptColumns(m: CtcMatrix, classes: readonly number[]): number[] {
  return classes.map((c) => {
    const k = m.kept.indexOf(c);
    if (k < 0) throw new Error(`class ${c} was not kept in the recogniser's output`);
    return k;
  });
}

/**
 * Argmax per timestep, repeats merged, blanks dropped. With `allowed`, only those
 * classes (and the blank) compete: reading an MRZ, a '<' that the full Chinese
 * dictionary would call '«' or 'く' is forced into the MRZ alphabet.
 */
export function ctcGreedy(m: CtcMatrix, allowed?: readonly number[]): CtcChar[] {
  const out: CtcChar[] = [];
  const candidates = allowed ? [BLANK, ...allowed] : undefined;
  const columns = candidates ? keptColumns(m, candidates) : undefined;
  const width = m.kept.length;
  let prev = BLANK;
  let cur: CtcChar | undefined;
  for (let t = 0; t < m.steps; t++) {
    let best = m.best[t]!;
    let bestP = m.bestProb[t]!;
    let rival: number | undefined;
    if (candidates && columns) {
      // The best and second-best characters (candidate 0 is the blank), then the blank against the best.
      let second = 0;
      let firstChar = 0;
      for (let i = 1; i < columns.length; i++) {
        const p = m.keptProbs[t * width + columns[i]!]!;
        if (p > firstChar) {
          second = firstChar;
          firstChar = p;
          best = candidates[i]!;
        } else if (p > second) second = p;
      }
      bestP = firstChar;
      rival = second;
      const blank = m.keptProbs[t * width + columns[0]!]!;
      if (blank >= bestP) {
        bestP = blank;
        best = BLANK;
      }
    }
    if (best !== BLANK && best === prev && cur) {
      cur.t1 = t;
      if (bestP > cur.prob) {
        cur.prob = bestP;
        if (rival !== undefined) cur.rival = rival;
      }
    } else if (best !== BLANK) {
      cur = { cls: best, t0: t, t1: t, prob: bestP, ...(rival !== undefined ? { rival } : {}) };
      out.push(cur);
    }
    prev = best;
  }
  return out;
}

/** Mean character probability, the line confidence PaddleOCR reports (0 for an empty line). */
export function meanProb(chars: CtcChar[]): number {
  if (chars.length === 0) return 0;
  return chars.reduce((s, c) => s + c.prob, 0) / chars.length;
}
