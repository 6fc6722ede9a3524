import { join } from 'node:path';
import { readSnapshot, removeSnapshot, writeSnapshot } from './index/index-snapshot.js';
import { WatchlistIndex } from './index/watchlist-index.js';
import { StaleSamples } from './stale-samples.js';
import { embeddingFromBytes, type SampleKey, type SampleRecord, type WatchlistStore } from './watchlist-store.js';

/** Beside the LMDB files in identity.watchlist_dir. */
export const SNAPSHOT_FILE = 'index-snapshot.bin';

interface WalkState {
  scratch: Float32Array;
  lastIdentity: string;
  lastWatchlist: string;
  index: WatchlistIndex | null;
}

/**
 * What the identity module keeps in memory for every watchlist: the search index (samples
 * of the configured recognizer), the identity count (the exact `size` of GET /watchlist,
 * searchable or not) and the stale samples of other recognizers; and how that state is
 * filled at start-up (index snapshot, or a walk over LMDB) and saved at stop.
 */
export class WatchlistMemory {
  readonly indexes = new Map<string, WatchlistIndex>();
  readonly sizes = new Map<string, number>();
  readonly stale = new StaleSamples();
  /** Where the last load took the indexes from. */
  loadedFrom: 'snapshot' | 'database' | null = null;
  private snapshotGeneration = -1;

  constructor(
    private readonly store: WatchlistStore,
    private readonly recognizer: string,
  ) {}

  private get snapshotFile(): string {
    return join(this.store.dir, SNAPSHOT_FILE);
  }

  get samples(): number {
    let n = 0;
    for (const index of this.indexes.values()) n += index.samples;
    return n;
  }

  get identities(): number {
    let n = 0;
    for (const size of this.sizes.values()) n += size;
    return n;
  }

  /**
   * From the index snapshot when it matches the database exactly (same generation, same
   * recognizer), otherwise by walking every stored sample, after which a fresh snapshot is
   * written for the next start. Returns why the snapshot was or was not used.
   */
  load(): string {
    const generation = this.store.generation();
    const { snapshot, reason } = readSnapshot(this.snapshotFile, { generation, recognizer: this.recognizer });
    if (snapshot) {
      this.reset();
      for (const [k, v] of snapshot.indexes) this.indexes.set(k, v);
      for (const [k, v] of snapshot.sizes) this.sizes.set(k, v);
      this.loadedFrom = 'snapshot';
      this.snapshotGeneration = generation;
    } else {
      this.walk();
      this.loadedFrom = 'database';
      try {
        this.save();
      } catch (err) {
        // The snapshot only speeds up the next start (a full disk, say): the index is in memory.
        return `${reason}; snapshot not written (${(err as Error).message})`;
      }
    }
    return reason;
  }

  /** Rebuilds everything from LMDB (start-up, or after a write that failed to commit). */
  walk(): void {
    this.reset();
    for (const name of this.store.watchlistNames()) this.sizes.set(name, 0);
    const state: WalkState = { scratch: new Float32Array(0), lastIdentity: '', lastWatchlist: '', index: null };
    for (const { key, value } of this.store.samples()) this.loadSample(state, key, value);
  }

  /** Writes the snapshot unless nothing changed since the last one; never with stale samples (not in it). */
  save(): void {
    if (this.stale.count > 0) {
      removeSnapshot(this.snapshotFile);
      return;
    }
    const generation = this.store.generation();
    if (generation === this.snapshotGeneration) return;
    writeSnapshot(this.snapshotFile, { generation, recognizer: this.recognizer, sizes: this.sizes, indexes: this.indexes });
    this.snapshotGeneration = generation;
  }

  indexFor(watchlist: string, dim: number): WatchlistIndex {
    let index = this.indexes.get(watchlist);
    if (!index) {
      index = new WatchlistIndex(dim);
      this.indexes.set(watchlist, index);
    }
    return index;
  }

  addIdentity(watchlist: string, by = 1): void {
    this.sizes.set(watchlist, Math.max(0, (this.sizes.get(watchlist) ?? 0) + by));
  }

  private reset(): void {
    this.indexes.clear();
    this.sizes.clear();
    this.stale.clear();
  }

  /** One stored sample into the indexes (a small function V8 optimises early in a long walk). */
  private loadSample(state: WalkState, key: SampleKey, value: SampleRecord): void {
    const watchlist = key[0];
    const identityId = key[1];
    if (identityId !== state.lastIdentity) {
      this.addIdentity(watchlist);
      state.lastIdentity = identityId;
    }
    if (value.model !== this.recognizer) {
      this.stale.add(key, value.model);
      return;
    }
    const dim = value.embedding.byteLength >> 2;
    // One scratch array for the whole walk: the index copies each row into its own memory.
    if (state.scratch.length !== dim) state.scratch = new Float32Array(dim);
    if (watchlist !== state.lastWatchlist || !state.index) {
      state.index = this.indexFor(watchlist, dim);
      state.lastWatchlist = watchlist;
    }
    state.index.add(identityId, embeddingFromBytes(value.embedding, state.scratch));
  }
}
