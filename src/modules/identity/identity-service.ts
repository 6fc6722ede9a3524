import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { VigilConfig } from '../../config/schema.js';
import type { EventBus } from '../../core/event-bus.js';
import { ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../core/errors.js';
import type { RgbImage } from '../../core/image-decode.js';
import type { AnalyzedFace, FaceResult, FaceService } from '../face/face-service.js';
import { FaceClusterer } from './face-clusterer.js';
import type { IndexSearchOptions, WatchlistIndex } from './index/watchlist-index.js';
import { resolveSamples } from './identity-resolver.js';
import type { StaleSamples } from './stale-samples.js';
import { WatchlistMemory } from './watchlist-memory.js';
import { DEFAULT_WATCHLIST, type IdentityRecord, type NewSample, type WatchlistStore } from './watchlist-store.js';

export interface Match {
  identity_id: string;
  label: string;
  similarity: number;
  metadata: Record<string, unknown>;
}

export interface EnrollResult {
  identity_id: string;
  label: string;
  watchlist: string;
  metadata: Record<string, unknown>;
  /** Samples the identity has now (this one included). */
  samples: number;
  /** true when this call created the identity, false when it added a sample to it. */
  created: boolean;
}

function otherWatchlist(identityId: string, watchlist: string): ConflictError {
  return new ConflictError('IDENTITY_IN_OTHER_WATCHLIST', `identity "${identityId}" is enrolled in watchlist "${watchlist}"; identity ids are unique across watchlists`, {
    identity_id: identityId,
    watchlist,
  });
}

export interface IdentityDeps {
  config: VigilConfig;
  log: Logger;
  bus: EventBus;
  face: FaceService;
  store: WatchlistStore;
}

/**
 * Watchlists over the face service: enrolment into LMDB and the per-watchlist in-memory
 * index, 1:N identification on the face service's calibrated similarity (the index ranks by
 * cosine, which that scale is monotonic in, and re-scores its candidates with
 * FaceService.similarity, so 0.4 means the same here as in /verify), match events, and
 * clustering of faces that matched nobody.
 */
export class IdentityService {
  private readonly memory: WatchlistMemory;
  readonly clusterer: FaceClusterer<FaceResult>;
  loaded = false;
  loadMs = 0;
  private startError: string | null = null;
  private readonly cfg: VigilConfig['identity'];

  constructor(private readonly deps: IdentityDeps) {
    this.cfg = deps.config.identity;
    this.memory = new WatchlistMemory(deps.store, deps.face.embeddingSpace);
    this.clusterer = new FaceClusterer<FaceResult>({
      threshold: this.cfg.cluster_threshold,
      maxClusters: this.cfg.max_clusters,
      maxSamples: this.cfg.cluster_samples,
      similarity: (a, b) => deps.face.similarity(a, b),
    });
  }

  get store(): WatchlistStore {
    return this.deps.store;
  }

  /** The embedding space samples are made in (the recognizer, or dlib's lifted space): samples of any other are stale. */
  get recognizer(): string {
    return this.deps.face.embeddingSpace;
  }

  /** Opens LMDB and fills the in-memory watchlists (snapshot or LMDB walk: WatchlistMemory.load). */
  start(): void {
    const t0 = performance.now();
    try {
      this.deps.store.open();
      const snapshot = this.memory.load();
      this.loaded = true;
      this.loadMs = performance.now() - t0;
      const m = this.memory;
      this.deps.log.info({ samples: m.samples, watchlists: m.sizes.size, stale: m.stale.count, from: m.loadedFrom, snapshot, ms: Math.round(this.loadMs) }, 'watchlists loaded');
    } catch (err) {
      this.startError = (err as Error).message;
      throw err;
    }
    if (this.stale.count > 0) {
      this.deps.log.warn(
        { stale: this.stale.count, models: this.stale.models(), recognizer: this.recognizer },
        'samples made by another recognizer are not searchable; re-enrol them (GET /api/v1/identity/stale)',
      );
    }
  }

  async stop(): Promise<void> {
    if (this.loaded) {
      await this.deps.store.settled();
      try {
        this.memory.save();
      } catch (err) {
        this.deps.log.warn({ err }, 'index snapshot not written; the next start rebuilds from the database');
      }
    }
    this.loaded = false;
    this.clusterer.clear();
    await this.deps.store.close();
  }

  /** The search index of a watchlist (benchmarks and diagnostics). */
  indexOf(watchlist: string): WatchlistIndex | undefined {
    return this.memory.indexes.get(watchlist);
  }

  get loadedFrom(): WatchlistMemory['loadedFrom'] {
    return this.memory.loadedFrom;
  }

  get stale(): StaleSamples {
    return this.memory.stale;
  }

  private ready(): void {
    if (!this.loaded) throw new ServiceUnavailableError('IDENTITY_UNAVAILABLE', 'the watchlist database is not open (see /api/v1/admin/health)');
  }

  /** A watchlist exists once enrolled into; "default" always exists (the spec's default name). */
  exists(watchlist: string): boolean {
    return watchlist === DEFAULT_WATCHLIST || this.memory.sizes.has(watchlist);
  }

  /** 404 WATCHLIST_NOT_FOUND for a watchlist that does not exist (checked before any image work). */
  assertWatchlist(watchlist: string): void {
    this.ready();
    if (!this.exists(watchlist)) {
      throw new NotFoundError('WATCHLIST_NOT_FOUND', `watchlist "${watchlist}" does not exist (enrol into it first; GET /api/v1/watchlist lists them)`, {
        watchlist,
      });
    }
  }

  private async embed(img: RgbImage, field: string): Promise<AnalyzedFace & { embedding: Float32Array }> {
    const face = await this.deps.face.largest(img, field);
    if (!face.embedding) throw new ServiceUnavailableError('MODEL_UNAVAILABLE', 'the face recognizer produced no embedding');
    return face as AnalyzedFace & { embedding: Float32Array };
  }

  async enroll(input: { image: RgbImage; label: string; watchlist: string; identityId?: string; metadata?: Record<string, unknown> }): Promise<EnrollResult & { face: FaceResult }> {
    this.ready();
    const face = await this.embed(input.image, 'image');
    const quality = face.result.quality;
    if (this.cfg.enforce_quality && quality && !quality.is_acceptable) {
      throw new UnprocessableError(
        'LOW_QUALITY',
        `the face in "image" is below the enrolment quality gate (overall ${quality.overall_score} < face.quality_gate ${this.deps.config.face.quality_gate})`,
        { field: 'image', quality_gate: this.deps.config.face.quality_gate, reasons: quality.reasons, quality },
      );
    }
    const sample: NewSample = { embedding: face.embedding, model: this.recognizer, source: 'enroll', quality: quality?.overall_score ?? null };
    const result = await this.addSamples(input.identityId ?? randomUUID(), input.label, input.watchlist, input.metadata, [sample]);
    return { ...result, face: face.result };
  }

  /** Stores samples and mirrors them into the index inside the same write transaction. */
  private async addSamples(identityId: string, label: string, watchlist: string, metadata: Record<string, unknown> | undefined, samples: NewSample[]): Promise<EnrollResult> {
    let outcome;
    try {
      outcome = await this.deps.store.addSamples({ identityId, label, watchlist, metadata, samples }, (_identity, created) => {
        const index = this.memory.indexFor(watchlist, samples[0]!.embedding.length);
        for (const s of samples) index.add(identityId, s.embedding);
        if (created) this.memory.addIdentity(watchlist);
      });
    } catch (err) {
      // The index already holds the rows of a transaction that did not commit: rebuild it.
      this.deps.log.error({ err }, 'enrolment write failed; reloading the indexes from storage');
      this.memory.walk();
      throw err;
    }
    if (!outcome.ok) throw otherWatchlist(identityId, outcome.conflict.watchlist);
    const { identity, created } = outcome;
    return { identity_id: identity.identity_id, label: identity.label, watchlist, metadata: identity.metadata, samples: identity.samples, created };
  }

  /** Identities in `watchlist` at or above `threshold`, best first, at most topK. */
  match(embedding: Float32Array, watchlist: string, topK: number, threshold: number): Match[] {
    const index = this.memory.indexes.get(watchlist);
    if (!index) return [];
    const { hits } = index.search(embedding, this.searchOptions(topK));
    const out: Match[] = [];
    for (const h of hits) {
      if (h.score < threshold) break;
      const rec = this.deps.store.identity(h.identityId);
      if (rec) out.push({ identity_id: rec.identity_id, label: rec.label, similarity: h.score, metadata: rec.metadata });
    }
    return out;
  }

  private searchOptions(topK: number): IndexSearchOptions {
    return { topK, rerank: this.cfg.rerank_candidates, exactMax: this.cfg.exact_search_max, rescore: (q, row) => this.deps.face.similarity(q, row) };
  }

  async identify(input: { image: RgbImage; watchlist: string; topK: number; threshold: number; cameraId?: string | null }): Promise<{ face: FaceResult; matches: Match[] }> {
    this.ready();
    this.assertWatchlist(input.watchlist);
    const face = await this.embed(input.image, 'image');
    const matches = this.match(face.embedding, input.watchlist, input.topK, input.threshold);
    this.emitMatches(matches, input.watchlist, input.cameraId ?? null);
    if (matches.length === 0 && this.cfg.cluster_unmatched) {
      this.clusterer.observe(face.embedding, {
        watchlist: input.watchlist,
        cameraId: input.cameraId ?? null,
        quality: face.result.quality?.overall_score ?? null,
        face: face.result,
      });
    }
    return { face: face.result, matches };
  }

  /** face_matched per match; watchlist_alert when one reaches the watchlist's alert threshold. */
  private emitMatches(matches: Match[], watchlist: string, cameraId: string | null): void {
    const alertAt = this.alertThreshold(watchlist);
    for (const m of matches) {
      const data = { identity_id: m.identity_id, label: m.label, similarity: m.similarity, watchlist };
      this.deps.bus.emit('face_matched', 'identity', data, cameraId);
      if (m.similarity >= alertAt) this.deps.bus.emit('watchlist_alert', 'identity', { ...data }, cameraId);
    }
  }

  alertThreshold(watchlist: string): number {
    return this.cfg.alert_thresholds[watchlist] ?? this.cfg.alert_threshold;
  }

  async remove(identityId: string): Promise<{ removed: string; watchlist: string; samples: number }> {
    this.ready();
    const result = await this.deps.store.removeIdentity(identityId, (identity) => {
      this.memory.indexes.get(identity.watchlist)?.remove(identityId);
      this.stale.removeIdentity(identityId);
      this.memory.addIdentity(identity.watchlist, -1);
    });
    if (!result) throw new NotFoundError('IDENTITY_NOT_FOUND', `no enrolled identity "${identityId}"`, { identity_id: identityId });
    return { removed: identityId, watchlist: result.identity.watchlist, samples: result.samples };
  }

  list(): { name: string; size: number; samples: number; stale_samples: number }[] {
    this.ready();
    const names = new Set([DEFAULT_WATCHLIST, ...this.memory.sizes.keys()]);
    return [...names].sort().map((name) => ({
      name,
      size: this.memory.sizes.get(name) ?? 0,
      samples: this.memory.indexes.get(name)?.samples ?? 0,
      stale_samples: this.stale.countIn(name),
    }));
  }

  /**
   * One page of a watchlist's identities, oldest enrolment first (ties by id), for
   * GET /watchlist/{name}. A linear walk of the identity table: fine for the thousands of
   * identities an edge box holds, and it reads LMDB's committed state, so a page never shows
   * an identity whose enrolment was not confirmed.
   */
  members(watchlist: string, offset: number, limit: number): { total: number; identities: IdentityRecord[] } {
    this.assertWatchlist(watchlist);
    const all = [...this.deps.store.identities()].filter((r) => r.watchlist === watchlist);
    all.sort((a, b) => (a.created_at === b.created_at ? (a.identity_id < b.identity_id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
    return { total: all.length, identities: all.slice(offset, offset + limit) };
  }

  identity(identityId: string): IdentityRecord | undefined {
    return this.deps.store.identity(identityId);
  }

  /** Enrols a provisional cluster's kept samples as an identity and drops the cluster. */
  async promote(
    clusterId: string,
    input: { label: string; watchlist: string; identityId?: string; metadata?: Record<string, unknown> },
  ): Promise<EnrollResult & { cluster_id: string; promoted_samples: number }> {
    this.ready();
    const embeddings = this.clusterer.samples(clusterId);
    if (!embeddings) throw new NotFoundError('CLUSTER_NOT_FOUND', `no provisional cluster "${clusterId}"`, { cluster_id: clusterId });
    const identityId = input.identityId ?? randomUUID();
    const existing = this.deps.store.identity(identityId);
    if (existing && existing.watchlist !== input.watchlist) throw otherWatchlist(identityId, existing.watchlist);
    // Taken before the write so two concurrent promotions cannot enrol the same cluster twice.
    this.clusterer.remove(clusterId);
    const samples = embeddings.map((embedding): NewSample => ({ embedding, model: this.recognizer, source: 'cluster', quality: null }));
    const result = await this.addSamples(identityId, input.label, input.watchlist, input.metadata, samples);
    return { ...result, cluster_id: clusterId, promoted_samples: samples.length };
  }

  /**
   * One decision from several faces of one person (identity_resolver): every sample is
   * scored against the union of the identities any sample retrieved, and resolveSamples
   * combines them (quality-weighted mean and majority of rank-1 votes).
   */
  resolve(samples: { embedding: Float32Array; quality: number | null }[], watchlist: string, topK: number, threshold: number) {
    const index = this.memory.indexes.get(watchlist);
    const perSample = samples.map((s) => new Map((index?.search(s.embedding, this.searchOptions(topK)).hits ?? []).map((h) => [h.identityId, h.score])));
    const ids = new Set(perSample.flatMap((m) => [...m.keys()]));
    const rescore = this.searchOptions(topK).rescore;
    perSample.forEach((scores, i) => {
      for (const id of ids) if (!scores.has(id)) scores.set(id, index?.scoreIdentity(id, samples[i]!.embedding, rescore) ?? 0);
    });
    const res = resolveSamples(
      perSample.map((scores, i) => ({ scores, quality: samples[i]!.quality })),
      threshold,
    );
    const label = (id: string) => this.deps.store.identity(id);
    const withLabel = (c: { identity_id: string; similarity: number; votes: number }) => {
      const rec = label(c.identity_id);
      return { ...c, similarity: Math.round(c.similarity * 10000) / 10000, label: rec?.label ?? '', metadata: rec?.metadata ?? {} };
    };
    return { decision: res.decision ? withLabel(res.decision) : null, candidates: res.candidates.slice(0, topK).map(withLabel), samples: res.samples };
  }

  async resolveTrack(input: { images: RgbImage[]; fields: string[]; watchlist: string; topK: number; threshold: number; cameraId?: string | null }) {
    this.ready();
    this.assertWatchlist(input.watchlist);
    const faces: (AnalyzedFace & { embedding: Float32Array })[] = [];
    for (let i = 0; i < input.images.length; i++) faces.push(await this.embed(input.images[i]!, input.fields[i]!));
    const out = this.resolve(
      faces.map((f) => ({ embedding: f.embedding, quality: f.result.quality?.overall_score ?? null })),
      input.watchlist,
      input.topK,
      input.threshold,
    );
    if (out.decision) this.emitMatches([out.decision], input.watchlist, input.cameraId ?? null);
    return { ...out, faces: faces.map((f) => f.result) };
  }

  /** Removes every sample made by another recognizer (after re-enrolment). */
  async purgeStale(): Promise<{ removed_samples: number; removed_identities: number }> {
    this.ready();
    const keys = this.stale.keys();
    const watchlistOf = new Map(keys.map((k) => [k[1], k[0]]));
    const res = await this.deps.store.removeSamples(keys, (removedIdentities) => {
      for (const id of watchlistOf.keys()) this.stale.removeIdentity(id);
      for (const id of removedIdentities) this.memory.addIdentity(watchlistOf.get(id)!, -1);
    });
    return { removed_samples: res.samples, removed_identities: res.identities };
  }

  staleReport(limit: number) {
    this.ready();
    const identities = this.stale.list(limit).map((s) => {
      const rec = this.deps.store.identity(s.identity_id);
      const total = rec?.samples ?? s.stale_samples;
      return { identity_id: s.identity_id, label: rec?.label ?? '', watchlist: s.watchlist, stale_samples: s.stale_samples, searchable_samples: total - s.stale_samples, models: s.models };
    });
    return { recognizer: this.recognizer, stale_samples: this.stale.count, stale_identities: this.stale.identities, identities };
  }

  status(): { ok: boolean; detail: string } {
    if (!this.loaded) return { ok: false, detail: `watchlist database not open${this.startError ? `: ${this.startError}` : ''}` };
    const { samples, identities } = this.memory;
    const stale =
      this.stale.count > 0
        ? `; ${this.stale.count} samples from another recognizer (${Object.keys(this.stale.models()).join(', ')}) are not searchable: re-enrol them with ${this.recognizer} (GET /api/v1/identity/stale)`
        : '';
    return {
      ok: true,
      detail: `${identities} identities, ${samples} searchable samples in ${this.memory.sizes.size} watchlists (recognizer ${this.recognizer}; loaded from the ${this.loadedFrom} in ${(this.loadMs / 1000).toFixed(1)} s)${stale}`,
    };
  }
}
