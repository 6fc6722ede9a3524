import type { SampleKey } from './watchlist-store.js';

interface StaleEntry {
  watchlist: string;
  samples: { key: SampleKey; model: string }[];
}

/**
 * Stored samples made by a recognizer other than the configured one. Their embeddings live
 * in another space, so they are kept out of the index (never compared) and reported:
 * /admin/health, GET /api/v1/identity/stale, and the stale_samples of GET /watchlist.
 * Re-enrolment path: enrol a new photo under the same identity_id (it adds a sample of the
 * current recognizer), then DELETE /api/v1/identity/stale removes the old samples.
 */
export class StaleSamples {
  private readonly byIdentity = new Map<string, StaleEntry>();
  private readonly perWatchlist = new Map<string, number>();
  private readonly perModel = new Map<string, number>();
  private total = 0;

  get count(): number {
    return this.total;
  }

  add(key: SampleKey, model: string): void {
    const [watchlist, id] = key;
    let entry = this.byIdentity.get(id);
    if (!entry) {
      entry = { watchlist, samples: [] };
      this.byIdentity.set(id, entry);
    }
    entry.samples.push({ key, model });
    this.bump(watchlist, model, 1);
  }

  removeIdentity(id: string): void {
    const entry = this.byIdentity.get(id);
    if (!entry) return;
    for (const s of entry.samples) this.bump(entry.watchlist, s.model, -1);
    this.byIdentity.delete(id);
  }

  clear(): void {
    this.byIdentity.clear();
    this.perWatchlist.clear();
    this.perModel.clear();
    this.total = 0;
  }

  keys(): SampleKey[] {
    return [...this.byIdentity.values()].flatMap((e) => e.samples.map((s) => s.key));
  }

  countIn(watchlist: string): number {
    return this.perWatchlist.get(watchlist) ?? 0;
  }

  models(): Record<string, number> {
    return Object.fromEntries(this.perModel);
  }

  /** Identities with stale samples (first `limit`), for the re-enrolment list. */
  list(limit: number): { identity_id: string; watchlist: string; stale_samples: number; models: string[] }[] {
    const out = [];
    for (const [id, e] of this.byIdentity) {
      if (out.length >= limit) break;
      out.push({ identity_id: id, watchlist: e.watchlist, stale_samples: e.samples.length, models: [...new Set(e.samples.map((s) => s.model))].sort() });
    }
    return out;
  }

  get identities(): number {
    return this.byIdentity.size;
  }

  private bump(watchlist: string, model: string, by: number): void {
    this.total += by;
    this.perWatchlist.set(watchlist, (this.perWatchlist.get(watchlist) ?? 0) + by);
    this.perModel.set(model, (this.perModel.get(model) ?? 0) + by);
    if (this.perModel.get(model) === 0) this.perModel.delete(model);
  }
}
