import os from 'node:os';

/** Percentile by nearest rank over a copy of the samples (ms). */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

export function summarize(samples: number[]): Summary {
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  return { n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95), p99: percentile(samples, 99), mean };
}

/** Times `fn` n times after `warmup` untimed runs; returns per-call milliseconds. */
export async function timeIt(n: number, fn: () => Promise<unknown> | unknown, warmup = 3): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

/** The machine line every benchmark prints, so figures are never quoted without their box. */
export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
  return `machine: ${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, load avg ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

/** One table row: label, p50/p95 (ms) and optional extra columns. */
export function row(label: string, s: Summary, extra = ''): string {
  return `| ${label} | ${s.n} | ${fmt(s.p50)} | ${fmt(s.p95)} |${extra ? ` ${extra} |` : ''}`;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Percentile bootstrap of the median: resample the values with replacement, 95% interval of the resampled medians. */
export function bootstrapMedianCi(xs: readonly number[], random: () => number, resamples = 10_000): [number, number] {
  const meds: number[] = [];
  const sample = new Array<number>(xs.length);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < xs.length; i++) sample[i] = xs[Math.floor(random() * xs.length)]!;
    meds.push(median(sample));
  }
  meds.sort((a, b) => a - b);
  return [meds[Math.floor(resamples * 0.025)]!, meds[Math.ceil(resamples * 0.975) - 1]!];
}
