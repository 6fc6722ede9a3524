export interface Assignment {
  matches: [number, number][];
  unmatchedRows: number[];
  unmatchedCols: number[];
}

/**
 * Minimum-cost assignment with a cost limit, as ByteTrack's lap.lapjv(extend_cost,
 * cost_limit): a row and a column are matched only when that is cheaper than
 * leaving both unmatched, i.e. cost <= limit. Solved exactly by the Hungarian
 * method (potentials, O(n^3)) on the matrix extended with "unmatched" slots at
 * limit/2 each. cost[r][c] is a row-major Float64Array of rows x cols.
 */
export function linearAssignment(cost: Float64Array, rows: number, cols: number, limit: number): Assignment {
  if (rows === 0 || cols === 0) {
    return { matches: [], unmatchedRows: range(rows), unmatchedCols: range(cols) };
  }
  const n = rows + cols;
  const BIG = 1e9;
  const half = limit / 2;
  // Extended square matrix: [C, half*I-ish; half, 0]; off-diagonal dummy entries are forbidden
  // so each real row has exactly one "unmatched" slot and each real column one.
  const at = (r: number, c: number): number => {
    if (r < rows && c < cols) {
      const v = cost[r * cols + c]!;
      return v > limit ? BIG : v;
    }
    if (r < rows) return c - cols === r ? half : BIG;
    if (c < cols) return r - rows === c ? half : BIG;
    return 0;
  };
  // e-maxx Hungarian, 1-based arrays.
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const p = new Int32Array(n + 1);
  const way = new Int32Array(n + 1);
  const minv = new Float64Array(n + 1);
  const used = new Uint8Array(n + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = at(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[p[j]!] = u[p[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else {
          minv[j] = minv[j]! - delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const matches: [number, number][] = [];
  const rowMatched = new Uint8Array(rows);
  const colMatched = new Uint8Array(cols);
  for (let j = 1; j <= n; j++) {
    const r = p[j]! - 1;
    const c = j - 1;
    if (r < rows && c < cols && cost[r * cols + c]! <= limit) {
      matches.push([r, c]);
      rowMatched[r] = 1;
      colMatched[c] = 1;
    }
  }
  matches.sort((a, b) => a[0] - b[0]);
  return {
    matches,
    unmatchedRows: range(rows).filter((r) => !rowMatched[r]),
    unmatchedCols: range(cols).filter((c) => !colMatched[c]),
  };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
