import { RingBuffer } from '../../core/ring-buffer.js';
import type { RawFrame } from './ppm-stream.js';

/** A frame as the rest of Vigil sees it: pixels plus where it sits in its camera's stream. */
export interface Frame extends RawFrame {
  /** 1-based index since the camera was added (equals frame_count when it arrived). */
  seq: number;
  /** Wall-clock arrival time, ms since the epoch. */
  timestamp: number;
}

/** The last `size` frames of a camera (video.buffer_size); older ones are dropped. */
export class FrameRing {
  private readonly ring: RingBuffer<Frame>;

  constructor(readonly size: number) {
    this.ring = new RingBuffer<Frame>(size);
  }

  push(frame: Frame): void {
    this.ring.push(frame);
  }

  latest(): Frame | undefined {
    return this.ring.newest(0);
  }

  /** Oldest first. */
  frames(): Frame[] {
    return this.ring.toArray();
  }

  get length(): number {
    return this.ring.length;
  }

  clear(): void {
    this.ring.clear();
  }
}

/**
 * Frames per second over a sliding window of arrival times; 0 once nothing has
 * arrived for a whole window, so a stalled camera never shows its old rate.
 */
export class RateMeter {
  private times: number[] = [];

  constructor(private readonly windowMs = 5000) {}

  tick(now: number): void {
    this.times.push(now);
    this.trim(now);
  }

  rate(now: number): number {
    this.trim(now);
    const n = this.times.length;
    if (n < 2) return 0;
    const span = this.times[n - 1]! - this.times[0]!;
    // Over a partial window the span between first and last is the honest denominator.
    return span > 0 ? (n - 1) / (Math.max(span, 1) / 1000) : 0;
  }

  private trim(now: number): void {
    let drop = 0;
    while (drop < this.times.length && now - this.times[drop]! > this.windowMs) drop++;
    if (drop > 0) this.times.splice(0, drop);
  }
}
