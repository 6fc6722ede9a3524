import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import type { ClusterSchema } from './schema.js';

export interface ClusterOptions {
  /** Calibrated similarity at which a face joins a cluster (identity.cluster_threshold). */
  threshold: number;
  /** Most clusters kept; the least recently seen goes first. */
  maxClusters: number;
  /** Embeddings kept per cluster for promotion (the best quality ones). */
  maxSamples: number;
  /** The face service's calibrated similarity of two unit embeddings. */
  similarity: (a: Float32Array, b: Float32Array) => number;
}

/** F: the face result kept per cluster (FaceResult in the service; anything in the unit test). */
export interface Sighting<F> {
  watchlist: string;
  cameraId: string | null;
  /** Overall quality 0-100 when known; decides which samples a cluster keeps. */
  quality: number | null;
  /** The face result of the sighting (kept for the best-quality sample as the cluster's face). */
  face: F;
}

interface KeptSample {
  embedding: Float32Array;
  quality: number;
}

/** A cluster as /identity/clusters shows it (ClusterSchema), its face typed by the clusterer's F. */
export type Cluster<F> = Omit<Static<typeof ClusterSchema>, 'face'> & { face: F };

interface ClusterState<F> {
  id: string;
  size: number;
  firstSeen: number;
  lastSeen: number;
  /** Sum of member embeddings; the centroid is its direction. */
  sum: Float64Array;
  centroid: Float32Array;
  samples: KeptSample[];
  bestFace: F;
  bestQuality: number;
  watchlists: Set<string>;
  cameras: Set<string>;
}

function normalise(sum: Float64Array, out: Float32Array): void {
  let n = 0;
  for (let j = 0; j < sum.length; j++) n += sum[j]! * sum[j]!;
  const k = n > 0 ? 1 / Math.sqrt(n) : 0;
  for (let j = 0; j < sum.length; j++) out[j] = sum[j]! * k;
}

/**
 * Online clustering of faces that matched nobody (leader-follower on centroids): a face
 * joins the most similar cluster when the calibrated similarity of the face to the
 * cluster's centroid reaches `threshold`, otherwise it starts a new provisional cluster.
 * Clusters live in memory only (they are provisional by definition and hold embeddings
 * of people nobody enrolled): bounded in number, the least recently seen evicted first.
 * A cluster is turned into an enrolled identity by promotion (IdentityService).
 */
export class FaceClusterer<F = unknown> {
  private readonly clusters = new Map<string, ClusterState<F>>();

  constructor(private readonly opts: ClusterOptions) {}

  get count(): number {
    return this.clusters.size;
  }

  observe(embedding: Float32Array, sighting: Sighting<F>): { cluster_id: string; created: boolean; similarity: number | null } {
    let best: ClusterState<F> | null = null;
    let bestSim = -Infinity;
    for (const c of this.clusters.values()) {
      const s = this.opts.similarity(embedding, c.centroid);
      if (s > bestSim) {
        bestSim = s;
        best = c;
      }
    }
    const now = Date.now();
    const quality = sighting.quality ?? 0;
    if (best && bestSim >= this.opts.threshold) {
      best.size++;
      best.lastSeen = now;
      for (let j = 0; j < embedding.length; j++) best.sum[j] = best.sum[j]! + embedding[j]!;
      normalise(best.sum, best.centroid);
      this.keep(best, embedding, quality, sighting.face);
      best.watchlists.add(sighting.watchlist);
      if (sighting.cameraId) best.cameras.add(sighting.cameraId);
      // Map order is recency order: re-insert so eviction takes the least recently seen.
      this.clusters.delete(best.id);
      this.clusters.set(best.id, best);
      return { cluster_id: best.id, created: false, similarity: bestSim };
    }
    const c: ClusterState<F> = {
      id: randomUUID(),
      size: 1,
      firstSeen: now,
      lastSeen: now,
      sum: Float64Array.from(embedding),
      centroid: Float32Array.from(embedding),
      samples: [],
      bestFace: sighting.face,
      bestQuality: quality,
      watchlists: new Set([sighting.watchlist]),
      cameras: new Set(sighting.cameraId ? [sighting.cameraId] : []),
    };
    c.samples.push({ embedding: Float32Array.from(embedding), quality });
    this.clusters.set(c.id, c);
    while (this.clusters.size > this.opts.maxClusters) {
      const oldest = this.clusters.keys().next().value as string;
      this.clusters.delete(oldest);
    }
    return { cluster_id: c.id, created: true, similarity: best ? bestSim : null };
  }

  /** Clusters, largest first. */
  list(minSize = 1): Cluster<F>[] {
    return [...this.clusters.values()]
      .filter((c) => c.size >= minSize)
      .sort((a, b) => b.size - a.size || b.lastSeen - a.lastSeen)
      .map((c) => this.summary(c));
  }

  get(id: string): Cluster<F> | undefined {
    const c = this.clusters.get(id);
    return c ? this.summary(c) : undefined;
  }

  /** The embeddings a promotion enrols (best quality first). */
  samples(id: string): Float32Array[] | undefined {
    return this.clusters.get(id)?.samples.map((s) => s.embedding);
  }

  remove(id: string): boolean {
    return this.clusters.delete(id);
  }

  clear(): void {
    this.clusters.clear();
  }

  private keep(c: ClusterState<F>, embedding: Float32Array, quality: number, face: F): void {
    if (quality > c.bestQuality) {
      c.bestQuality = quality;
      c.bestFace = face;
    }
    if (c.samples.length < this.opts.maxSamples) c.samples.push({ embedding: Float32Array.from(embedding), quality });
    else {
      const worst = c.samples.reduce((w, s, i) => (s.quality < c.samples[w]!.quality ? i : w), 0);
      if (quality > c.samples[worst]!.quality) c.samples[worst] = { embedding: Float32Array.from(embedding), quality };
    }
    c.samples.sort((a, b) => b.quality - a.quality);
  }

  private summary(c: ClusterState<F>): Cluster<F> {
    return {
      cluster_id: c.id,
      size: c.size,
      first_seen: new Date(c.firstSeen).toISOString(),
      last_seen: new Date(c.lastSeen).toISOString(),
      watchlists: [...c.watchlists].sort(),
      camera_ids: [...c.cameras].sort(),
      face: c.bestFace,
    };
  }
}
