import type { LineCounts } from '../../src/modules/video/counting/rules.js';
import type { CountRange, ZoneRange } from './line-counts.js';

export interface LineScore {
  /** Sum of true crossings (both directions) over the lines. */
  truth: number;
  /** sum |Vigil - truth| per line and direction. */
  absError: number;
  /** Counts beyond the truth (sum max(0, Vigil - truth) per line and direction): crossings that did not happen. */
  extra: number;
  /** Counts on a line direction nobody crossed. */
  phantom: number;
  /** Per-line error (|in error| + |out error|) / truth, over lines someone crossed, 90th percentile. */
  p90LineError: number;
  /** sum |error| / sum truth over the worst tenth of those lines. */
  worstDecile: number;
  linesCrossed: number;
}

export function scoreLines(truth: Record<string, LineCounts>, got: Record<string, LineCounts>): LineScore {
  let t = 0;
  let abs = 0;
  let extra = 0;
  let phantom = 0;
  const per: { err: number; truth: number }[] = [];
  for (const [name, g] of Object.entries(truth)) {
    const v = got[name] ?? { in: 0, out: 0 };
    const err = Math.abs(v.in - g.in) + Math.abs(v.out - g.out);
    t += g.in + g.out;
    abs += err;
    extra += Math.max(0, v.in - g.in) + Math.max(0, v.out - g.out);
    phantom += (g.in === 0 ? v.in : 0) + (g.out === 0 ? v.out : 0);
    if (g.in + g.out > 0) per.push({ err, truth: g.in + g.out });
  }
  per.sort((p, q) => q.err / q.truth - p.err / p.truth);
  const k = Math.max(1, Math.ceil(per.length / 10));
  const worst = per.slice(0, k);
  const p90 = per.length ? per[Math.min(per.length - 1, Math.floor(per.length / 10))]! : { err: 0, truth: 1 };
  return {
    truth: t,
    absError: abs,
    extra,
    phantom,
    p90LineError: p90.err / p90.truth,
    worstDecile:
      worst.reduce((s, w) => s + w.err, 0) /
      Math.max(
        1,
        worst.reduce((s, w) => s + w.truth, 0),
      ),
    linesCrossed: per.length,
  };
}

export function scoreZones(truth: Record<string, { entered: number; exited: number }>, got: Record<string, { entered: number; exited: number }>): { truth: number; absError: number; extra: number } {
  let t = 0;
  let abs = 0;
  let extra = 0;
  for (const [name, g] of Object.entries(truth)) {
    const v = got[name] ?? { entered: 0, exited: 0 };
    t += g.entered + g.exited;
    abs += Math.abs(v.entered - g.entered) + Math.abs(v.exited - g.exited);
    extra += Math.max(0, v.entered - g.entered) + Math.max(0, v.exited - g.exited);
  }
  return { truth: t, absError: abs, extra };
}

export const pct = (a: number, b: number): string => (b > 0 ? `${((100 * a) / b).toFixed(1)}%` : '-');

/** sum over lines and directions of how far Vigil's count lies outside the truth's range (line-counts.ts truthRange). */
export function errorBeyondRange(range: CountRange, got: Record<string, LineCounts>): number {
  let e = 0;
  for (const [name, r] of Object.entries(range)) {
    const v = got[name] ?? { in: 0, out: 0 };
    for (const dir of ['in', 'out'] as const) {
      const [lo, hi] = r[dir];
      e += Math.max(0, lo - v[dir], v[dir] - hi);
    }
  }
  return e;
}

/** sum over zones of how far Vigil's entered and exited lie outside the truth's range (line-counts.ts zoneTruthRange). */
export function zoneErrorBeyondRange(range: ZoneRange, got: Record<string, { entered: number; exited: number }>): number {
  let e = 0;
  for (const [name, r] of Object.entries(range)) {
    const v = got[name] ?? { entered: 0, exited: 0 };
    for (const k of ['entered', 'exited'] as const) e += Math.max(0, r[k][0] - v[k], v[k] - r[k][1]);
  }
  return e;
}
