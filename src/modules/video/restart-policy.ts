/** Backoff and restart-intensity settings of a camera supervisor. */
export interface RestartSettings {
  initialMs: number;
  maxMs: number;
  /** More than this many restarts within windowMs and the camera gives up (status failed). */
  maxRestarts: number;
  windowMs: number;
}

export type RestartDecision = { action: 'restart'; delayMs: number; attempt: number } | { action: 'give_up'; restarts: number; windowMs: number };

/**
 * Capped exponential backoff plus an Erlang-style restart intensity (at most N restarts
 * in T): a camera that keeps dying backs off 1, 2, 4 ... maxMs seconds, and one that
 * flaps faster than the intensity allows is declared failed instead of spinning.
 * Pure (the clock is passed in) so it is unit-tested without timers.
 */
export class RestartPolicy {
  private consecutive = 0;
  private history: number[] = [];

  constructor(private readonly s: RestartSettings) {}

  /** A run ended badly at `now`: restart after a delay, or give up. */
  next(now: number): RestartDecision {
    this.history = this.history.filter((t) => now - t < this.s.windowMs);
    if (this.history.length >= this.s.maxRestarts) {
      return { action: 'give_up', restarts: this.history.length, windowMs: this.s.windowMs };
    }
    this.history.push(now);
    const delayMs = Math.min(this.s.maxMs, this.s.initialMs * 2 ** this.consecutive);
    this.consecutive++;
    return { action: 'restart', delayMs, attempt: this.consecutive };
  }

  /** Frames flow again: the next failure starts the backoff from the beginning. */
  healthy(): void {
    this.consecutive = 0;
  }

  /** A fresh start after giving up (cool-down retry or re-add): forget everything. */
  reset(): void {
    this.consecutive = 0;
    this.history = [];
  }
}
