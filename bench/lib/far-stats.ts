/** Statistics behind the similarity calibration: binomial bounds and the impostor-tail fit. */
import { FAR_TABLE, type ImpostorFit } from '../../src/modules/face/score-calibration.js';

function binomCdf(k: number, n: number, p: number): number {
  // Sum in log space: n is a few thousand, the terms underflow otherwise.
  let total = 0;
  let logC = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    total += Math.exp(logC + i * Math.log(p) + (n - i) * Math.log1p(-p));
  }
  return Math.min(1, total);
}

/** Clopper-Pearson two-sided 95% interval for k successes in n trials. */
export function clopperPearson(k: number, n: number): [number, number] {
  const solve = (f: (p: number) => number) => {
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < 80; i++) {
      const mid = (lo + hi) / 2;
      if (f(mid) > 0) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  const upper = k >= n ? 1 : solve((p) => binomCdf(k, n, p) - 0.025);
  const lower = k <= 0 ? 0 : solve((p) => binomCdf(k - 1, n, p) - 0.975);
  return [lower, upper];
}

/** An impostor pair's score and the two people compared. */
export interface ImpostorPair {
  a: string;
  b: string;
  s: number;
}

/** Raw score at each FAR from an exponential tail over the top `tailShare` of the scores. */
export function tailThresholds(scores: number[], tailShare: number, fars: readonly number[]): number[] {
  const sorted = [...scores].sort((x, y) => y - x);
  const k = Math.max(10, Math.round(sorted.length * tailShare));
  const u = sorted[Math.min(k, sorted.length - 1)]!;
  const beta = sorted.slice(0, k).reduce((acc, x) => acc + (x - u), 0) / k;
  return fars.map((far) => u + beta * Math.log(k / sorted.length / far));
}

/**
 * Per FAR, the 5th, 50th and 95th percentiles over `draws` half-samples of the people of the
 * tail-fitted raw threshold: how much the threshold depends on who was measured.
 */
export function thresholdSpread(pairs: ImpostorPair[], tailShare: number, fars: readonly number[], random: () => number, draws = 200): [number, number, number][] {
  const people = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
  const perFar: number[][] = fars.map(() => []);
  for (let d = 0; d < draws; d++) {
    const half = new Set(people.filter(() => random() < 0.5));
    const scores = pairs.filter((p) => half.has(p.a) && half.has(p.b)).map((p) => p.s);
    if (scores.length < 100) continue;
    tailThresholds(scores, tailShare, fars).forEach((t, i) => perFar[i]!.push(t));
  }
  return perFar.map((ts) => {
    const sorted = ts.sort((x, y) => x - y);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return [at(0.05), at(0.5), at(0.95)];
  });
}

/** The ImpostorFit to ship: tail-fitted thresholds for FAR_TABLE over all pairs, and what the pairs show at them. */
export function impostorFit(scores: number[], tailShare: number, measuredOn: string): ImpostorFit {
  // Bounded by 1 like the cosine, and kept increasing: a FAR no score can reach maps near 1.
  const raw = tailThresholds(
    scores,
    tailShare,
    FAR_TABLE.map((r) => r.far),
  ).map((t, i) => round(Math.min(t, 0.996 + i * 0.001)));
  return {
    raw_thresholds: raw,
    method: `exponential tail fitted over the top ${tailShare * 100}% of impostor scores`,
    pairs: scores.length,
    measured_on: measuredOn,
    evidence: FAR_TABLE.map(({ threshold }, i) => {
      const accepted = scores.filter((s) => s >= raw[i]!).length;
      return { threshold, accepted, far_upper_95: round(clopperPearson(accepted, scores.length)[1], 6) };
    }),
  };
}

const round = (v: number, d = 4) => Number(v.toFixed(d));
