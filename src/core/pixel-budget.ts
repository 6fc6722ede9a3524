/**
 * Decoded pixels in flight across the process. libvips holds each image being decoded
 * (3 bytes a pixel out, more in its working buffers) on the libuv pool; without a bound,
 * 24 concurrent 6300x6300 JPEGs took RSS to 4.09 GB. A decode waits, first come first
 * served, until its pixels fit; one image larger than the whole budget runs alone.
 * Process-wide on purpose: the memory and the libuv threads it protects are the process's.
 */
export class PixelBudget {
  private inFlight = 0;
  private readonly waiting: { pixels: number; go: () => void }[] = [];

  constructor(private max: number) {}

  setMax(max: number): void {
    this.max = max;
    this.pump();
  }

  stats(): { in_flight: number; waiting: number; max: number } {
    return { in_flight: this.inFlight, waiting: this.waiting.length, max: this.max };
  }

  private fits(pixels: number): boolean {
    return this.inFlight === 0 || this.inFlight + pixels <= this.max;
  }

  /** Resolves with the release function once `pixels` fit in the budget. */
  async acquire(pixels: number): Promise<() => void> {
    if (this.waiting.length === 0 && this.fits(pixels)) {
      this.inFlight += pixels;
    } else {
      await new Promise<void>((go) => this.waiting.push({ pixels, go }));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= pixels;
      this.pump();
    };
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.pixels)) {
      const next = this.waiting.shift()!;
      this.inFlight += next.pixels;
      next.go();
    }
  }
}

/** The process's budget and JPEG scan cap; buildApp sets them from the limits section. */
export const decodeLimits = {
  budget: new PixelBudget(80_000_000),
  maxJpegScans: 32,
};
