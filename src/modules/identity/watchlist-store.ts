import type { Database, RootDatabase } from 'lmdb';
import { openGuardedLmdb } from '../../core/lmdb-open.js';
import { StorageGuard } from '../../core/storage-guard.js';

/** One enrolled person. `identity_id` is unique across all watchlists (DELETE names only it). */
export interface IdentityRecord {
  identity_id: string;
  label: string;
  watchlist: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** Samples stored for this identity, whatever model made them. */
  samples: number;
  /** Next sample sequence number (never reused, so keys stay unique after deletes). */
  next_seq: number;
}

/** One face embedding of an identity; the model name makes a change of recognizer visible. */
export interface SampleRecord {
  model: string;
  /** float32 little-endian bytes of the unit-length embedding. */
  embedding: Uint8Array;
  created_at: string;
  /** 'enroll' (POST /watchlist/enroll) or 'cluster' (a promoted provisional cluster). */
  source: 'enroll' | 'cluster';
  /** Overall quality 0-100 of the face when it was enrolled, when quality ran. */
  quality: number | null;
}

export interface NewSample {
  embedding: Float32Array;
  model: string;
  source: SampleRecord['source'];
  quality: number | null;
}

export type SampleKey = [watchlist: string, identityId: string, seq: number];

export type AddOutcome = { ok: true; identity: IdentityRecord; created: boolean; seqs: number[] } | { ok: false; conflict: IdentityRecord };

/** The watchlist that exists without ever being enrolled into (the spec's default name). */
export const DEFAULT_WATCHLIST = 'default';

const SCHEMA_VERSION = 1;

export function embeddingBytes(e: Float32Array): Uint8Array {
  return new Uint8Array(e.buffer.slice(e.byteOffset, e.byteOffset + e.byteLength));
}

/**
 * Copies stored bytes into an aligned Float32Array (stored buffers need not be 4-byte
 * aligned). Pass `into` to reuse one array across a whole load instead of allocating per row.
 */
export function embeddingFromBytes(bytes: Uint8Array, into?: Float32Array): Float32Array {
  const out = into && into.length === bytes.byteLength >> 2 ? into : new Float32Array(bytes.byteLength >> 2);
  new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(bytes.subarray(0, out.byteLength));
  return out;
}

/**
 * LMDB under identity.watchlist_dir: identities by id, samples by [watchlist, identity, seq],
 * and the watchlists that exist. Every change is one LMDB transaction whose promise resolves
 * once it is committed and flushed, so what a response confirmed survives kill -9; a write
 * cut short by a kill leaves the previous committed state (LMDB never shows half a write).
 *
 * Mutations take an `apply` callback that runs inside the write transaction, in commit
 * order, so the in-memory index follows the exact order of the stored changes.
 */
export class WatchlistStore {
  private root: RootDatabase | null = null;
  private identitiesDb!: Database<IdentityRecord, string>;
  private samplesDb!: Database<SampleRecord, SampleKey>;
  private watchlistsDb!: Database<{ name: string; created_at: string }, string>;
  private metaDb!: Database<number, string>;

  constructor(
    readonly dir: string,
    private readonly guard: StorageGuard = new StorageGuard(dir, 0),
  ) {}

  open(): void {
    this.root = openGuardedLmdb({ path: this.dir, maxDbs: 8, compression: false }, this.guard);
    this.identitiesDb = this.root.openDB<IdentityRecord, string>({ name: 'identities' });
    this.samplesDb = this.root.openDB<SampleRecord, SampleKey>({ name: 'samples' });
    this.watchlistsDb = this.root.openDB({ name: 'watchlists' });
    const meta = this.root.openDB<number, string>({ name: 'meta' });
    this.metaDb = meta;
    const version = meta.get('schema');
    if (version === undefined) meta.putSync('schema', SCHEMA_VERSION);
    else if (version !== SCHEMA_VERSION) throw new Error(`watchlist database schema ${version} is not the supported ${SCHEMA_VERSION}`);
  }

  async close(): Promise<void> {
    const root = this.root;
    this.root = null;
    if (root) await root.close();
  }

  /** Resolves once every write issued so far is committed. */
  async settled(): Promise<void> {
    if (this.root) await this.root.committed;
  }

  get isOpen(): boolean {
    return this.root !== null;
  }

  /**
   * Counts committed changes: every mutation bumps it in its own transaction. An index
   * snapshot taken at generation g is exactly the database while this still reads g.
   */
  generation(): number {
    return this.metaDb.get('generation') ?? 0;
  }

  private bump(): void {
    void this.metaDb.put('generation', this.generation() + 1);
  }

  identity(id: string): IdentityRecord | undefined {
    return this.identitiesDb.get(id);
  }

  /** Watchlist names that exist (created by their first enrolment), sorted. */
  watchlistNames(): string[] {
    return [...this.watchlistsDb.getKeys()].map(String);
  }

  /** Every stored sample, in key order (watchlist, identity, seq); the start-up load walks this. */
  samples(): Iterable<{ key: SampleKey; value: SampleRecord }> {
    return this.samplesDb.getRange();
  }

  /** Every identity record. */
  *identities(): Generator<IdentityRecord> {
    for (const { value } of this.identitiesDb.getRange()) yield value;
  }

  samplesOf(identity: IdentityRecord): { key: SampleKey; value: SampleRecord }[] {
    const { watchlist, identity_id } = identity;
    return [...this.samplesDb.getRange({ start: [watchlist, identity_id], end: [watchlist, identity_id, Number.MAX_SAFE_INTEGER] })].map(({ key, value }) => ({ key, value }));
  }

  /**
   * Adds samples to an identity, creating it (and its watchlist) when new. An identity that
   * lives in another watchlist is a conflict, reported rather than thrown so a failing
   * callback cannot disturb the other writes batched into the same transaction.
   */
  addSamples(
    input: { identityId: string; label: string; watchlist: string; metadata: Record<string, unknown> | undefined; samples: NewSample[] },
    apply: (identity: IdentityRecord, created: boolean) => void,
  ): Promise<AddOutcome> {
    return this.identitiesDb.transaction((): AddOutcome => {
      const now = new Date().toISOString();
      const existing = this.identitiesDb.get(input.identityId);
      if (existing && existing.watchlist !== input.watchlist) return { ok: false, conflict: existing };
      const identity: IdentityRecord = existing
        ? { ...existing, label: input.label, metadata: input.metadata ?? existing.metadata, updated_at: now }
        : {
            identity_id: input.identityId,
            label: input.label,
            watchlist: input.watchlist,
            metadata: input.metadata ?? {},
            created_at: now,
            updated_at: now,
            samples: 0,
            next_seq: 0,
          };
      const seqs: number[] = [];
      for (const s of input.samples) {
        const seq = identity.next_seq++;
        seqs.push(seq);
        void this.samplesDb.put([input.watchlist, input.identityId, seq], {
          model: s.model,
          embedding: embeddingBytes(s.embedding),
          created_at: now,
          source: s.source,
          quality: s.quality,
        });
      }
      identity.samples += input.samples.length;
      void this.identitiesDb.put(input.identityId, identity);
      if (this.watchlistsDb.get(input.watchlist) === undefined) void this.watchlistsDb.put(input.watchlist, { name: input.watchlist, created_at: now });
      this.bump();
      apply(identity, !existing);
      return { ok: true, identity, created: !existing, seqs };
    });
  }

  /** Removes an identity and every sample of it; undefined when there was none. */
  removeIdentity(id: string, apply: (identity: IdentityRecord) => void): Promise<{ identity: IdentityRecord; samples: number } | undefined> {
    return this.identitiesDb.transaction(() => {
      const identity = this.identitiesDb.get(id);
      if (!identity) return undefined;
      let samples = 0;
      for (const { key } of this.samplesOf(identity)) {
        void this.samplesDb.remove(key);
        samples++;
      }
      void this.identitiesDb.remove(id);
      this.bump();
      apply(identity);
      return { identity, samples };
    });
  }

  /** Removes the given samples (a re-enrolment clean-up); identities left with none go too. */
  removeSamples(keys: SampleKey[], apply: (removedIdentities: string[]) => void): Promise<{ samples: number; identities: number }> {
    return this.identitiesDb.transaction(() => {
      const touched = new Map<string, IdentityRecord>();
      let samples = 0;
      for (const key of keys) {
        if (this.samplesDb.get(key) === undefined) continue;
        void this.samplesDb.remove(key);
        samples++;
        const id = key[1];
        const rec = touched.get(id) ?? this.identitiesDb.get(id);
        if (rec) touched.set(id, { ...rec, samples: rec.samples - 1 });
      }
      const removed: string[] = [];
      for (const rec of touched.values()) {
        if (rec.samples <= 0) {
          void this.identitiesDb.remove(rec.identity_id);
          removed.push(rec.identity_id);
        } else void this.identitiesDb.put(rec.identity_id, rec);
      }
      this.bump();
      apply(removed);
      return { samples, identities: removed.length };
    });
  }
}
