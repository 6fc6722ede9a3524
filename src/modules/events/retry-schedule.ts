/** The retry policy of webhook deliveries, as pure functions so the schedule is unit-tested. */
export interface RetryPolicy {
  baseDelayMs: number;
  factor: number;
  maxDelayMs: number;
  jitter: number;
  maxAttempts: number;
}

/**
 * Delay before the next attempt after `failedAttempts` failures (1 = the first
 * attempt failed): base * factor^(n-1), capped at maxDelay, then multiplied by a
 * random factor in [1 - jitter, 1 + jitter] (kept under maxDelay * (1 + jitter)).
 */
export function retryDelayMs(failedAttempts: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exp = policy.baseDelayMs * policy.factor ** Math.max(0, failedAttempts - 1);
  const capped = Math.min(policy.maxDelayMs, exp);
  const spread = 1 - policy.jitter + 2 * policy.jitter * random();
  return Math.max(0, Math.round(capped * spread));
}

/** The nominal (jitter-free) delays of the whole schedule, for docs and tests. */
export function nominalSchedule(policy: RetryPolicy): number[] {
  const out: number[] = [];
  for (let n = 1; n < policy.maxAttempts; n++) out.push(retryDelayMs(n, { ...policy, jitter: 0 }));
  return out;
}

/**
 * Retry-After as sent with 429/503: delay-seconds or an HTTP date. Returns the
 * delay in ms (never negative), or null when absent or unparseable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return null;
  const trimmed = v.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** Whether another attempt is allowed after `failedAttempts` failures. */
export function mayRetry(failedAttempts: number, policy: RetryPolicy): boolean {
  return failedAttempts < policy.maxAttempts;
}
