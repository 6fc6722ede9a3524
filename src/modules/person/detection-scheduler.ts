/**
 * Shares one detector session among many cameras. Each camera (key) has one slot:
 * a newer frame replaces a waiting older one (the older resolves null: dropped),
 * so a slow detector lowers every camera's processed rate instead of building an
 * unbounded backlog or letting one busy camera starve the rest. Keys are served
 * round-robin, at most one frame per key in flight (its tracker sees frames in
 * order) and at most `concurrency` runs at once.
 */
export class DetectionScheduler<F, R> {
  private readonly waiting = new Map<string, { frame: F; resolve: (r: R | null) => void; reject: (e: unknown) => void }>();
  private readonly inFlight = new Set<string>();
  private readonly lastServed = new Map<string, number>();
  private tick = 0;
  private running = 0;
  private closed = false;
  readonly stats = { processed: 0, dropped: 0, failed: 0 };

  constructor(
    private readonly run: (frame: F) => Promise<R>,
    private readonly concurrency: number,
  ) {}

  /** Resolves with the result, or null when a newer frame of the same key took the slot. */
  submit(key: string, frame: F): Promise<R | null> {
    if (this.closed) return Promise.resolve(null);
    return new Promise<R | null>((resolve, reject) => {
      const prev = this.waiting.get(key);
      if (prev) {
        this.stats.dropped++;
        prev.resolve(null);
      }
      this.waiting.set(key, { frame, resolve, reject });
      this.pump();
    });
  }

  /** Frames of a key not yet started resolve null (camera removed). */
  cancel(key: string): void {
    this.lastServed.delete(key);
    const w = this.waiting.get(key);
    if (w) {
      this.waiting.delete(key);
      w.resolve(null);
    }
  }

  close(): void {
    this.closed = true;
    for (const key of [...this.waiting.keys()]) this.cancel(key);
  }

  get queued(): number {
    return this.waiting.size;
  }

  private pump(): void {
    while (this.running < this.concurrency) {
      // Round-robin: of the keys with a frame waiting, the one served longest ago.
      let picked: string | undefined;
      let oldest = Infinity;
      for (const key of this.waiting.keys()) {
        if (this.inFlight.has(key)) continue;
        const served = this.lastServed.get(key) ?? -1;
        if (served < oldest) {
          oldest = served;
          picked = key;
        }
      }
      if (picked === undefined) return;
      const job = this.waiting.get(picked)!;
      this.waiting.delete(picked);
      this.inFlight.add(picked);
      this.lastServed.set(picked, this.tick++);
      this.running++;
      const key = picked;
      void this.run(job.frame)
        .then(
          (r) => {
            this.stats.processed++;
            job.resolve(r);
          },
          (err: unknown) => {
            this.stats.failed++;
            job.reject(err);
          },
        )
        .finally(() => {
          this.running--;
          this.inFlight.delete(key);
          this.pump();
        });
    }
  }
}
