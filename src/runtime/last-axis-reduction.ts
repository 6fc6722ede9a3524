/**
 * A reduction of a model output's last axis, done in the inference worker: a text
 * recogniser answers 6,625 class probabilities per timestep, about 2 MB a line and 50 MB
 * a passport page, of which the reader needs each timestep's best class and a few dozen
 * columns (the MRZ alphabet). Reducing where the output is made keeps those megabytes
 * out of the main thread, whose garbage collection of them cost about 90 ms of a /scan.
 */
export interface LastAxisReduction {
  /** The output to reduce; the model's other outputs come back whole. */
  output: string;
  /** Indices along the last axis whose values are kept for every row. */
  keep: readonly number[];
}

/** Every row of the output (all axes but the last, flattened) reduced. */
export interface ReducedRows {
  rows: number;
  /** Per row, the index of the largest value along the last axis, and that value. */
  argmax: Int32Array;
  max: Float32Array;
  /** rows x keep.length values, row-major: column k holds index keep[k]. */
  kept: Float32Array;
}

export function reduceLastAxis(data: Float32Array, dims: readonly number[], keep: readonly number[]): ReducedRows {
  const width = dims[dims.length - 1] ?? 0;
  for (const k of keep) if (!(k >= 0 && k < width)) throw new Error(`kept index ${k} is outside the last axis (${width})`);
  const rows = width === 0 ? 0 : data.length / width;
  const argmax = new Int32Array(rows);
  const max = new Float32Array(rows);
  const kept = new Float32Array(rows * keep.length);
  for (let r = 0; r < rows; r++) {
    const base = r * width;
    let best = 0;
    let bestV = data[base]!;
    for (let c = 1; c < width; c++) {
      const v = data[base + c]!;
      if (v > bestV) {
        bestV = v;
        best = c;
      }
    }
    argmax[r] = best;
    max[r] = bestV;
    for (let k = 0; k < keep.length; k++) kept[r * keep.length + k] = data[base + keep[k]!]!;
  }
  return { rows, argmax, max, kept };
}
