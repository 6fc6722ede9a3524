import { GalleryMatrix, type ScanMode } from './gallery-matrix.js';
import { topCandidates } from './top-candidates.js';

export interface IndexSearchOptions {
  /** Most identities returned. */
  topK: number;
  /** Rows re-scored exactly after the scan (at least 4 x topK are). */
  rerank: number;
  /** Galleries up to this many rows are scanned exactly in float32; larger ones in int8. */
  exactMax: number;
  /**
   * Final score of a candidate row, given the query and the row's float32 values. Defaults
   * to the cosine (dot product of unit vectors). Must be monotonic in the cosine: the scan
   * ranks by cosine and only the re-ranked rows are passed here.
   */
  rescore?: (query: Float32Array, row: Float32Array) => number;
}

export interface IndexHit {
  identityId: string;
  /** Best score over the identity's samples (rescore's scale). */
  score: number;
  /** The cosine behind that score. */
  cosine: number;
}

export interface IndexSearchResult {
  hits: IndexHit[];
  mode: ScanMode;
  /** Rows re-scored exactly. */
  reranked: number;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length;
  for (let j = 0; j < n; j += 4) {
    s0 += a[j]! * b[j]!;
    s1 += a[j + 1]! * b[j + 1]!;
    s2 += a[j + 2]! * b[j + 2]!;
    s3 += a[j + 3]! * b[j + 3]!;
  }
  return s0 + s1 + s2 + s3;
}

/**
 * The in-memory search structure of one watchlist: every enrolled sample of every
 * identity is a row (no averaging: a person enrolled from three photos is matched by the
 * closest of the three). Identity to rows is kept both ways so deleting an identity and
 * the row moves that removal causes stay O(samples of that identity).
 */
export class WatchlistIndex {
  private readonly matrix: GalleryMatrix;
  private readonly rowIdentity: string[] = [];
  private readonly rowsOf = new Map<string, number[]>();

  constructor(
    readonly dim: number,
    initialCapacity?: number,
    matrix?: GalleryMatrix,
  ) {
    this.matrix = matrix ?? new GalleryMatrix(dim, initialCapacity);
  }

  /** The rows for a snapshot: row i belongs to identities[i]. */
  snapshot(): { identities: readonly string[]; regions: ReturnType<GalleryMatrix['regions']> } {
    return { identities: this.rowIdentity, regions: this.matrix.regions() };
  }

  /** Rebuilds an index from a snapshot: `fill` writes the matrix regions of identities.length rows. */
  static restore(dim: number, identities: string[], fill: Parameters<typeof GalleryMatrix.restore>[2]): WatchlistIndex {
    const index = new WatchlistIndex(dim, undefined, GalleryMatrix.restore(dim, identities.length, fill));
    identities.forEach((id, row) => {
      index.rowIdentity[row] = id;
      const rows = index.rowsOf.get(id);
      if (rows) rows.push(row);
      else index.rowsOf.set(id, [row]);
    });
    return index;
  }

  get identities(): number {
    return this.rowsOf.size;
  }

  get samples(): number {
    return this.matrix.size;
  }

  get bytes(): number {
    return this.matrix.bytes;
  }

  has(identityId: string): boolean {
    return this.rowsOf.has(identityId);
  }

  /** Adds one sample (a unit-length embedding) of an identity. */
  add(identityId: string, embedding: Float32Array): void {
    for (let j = 0; j < embedding.length; j++) {
      if (!Number.isFinite(embedding[j]!)) throw new Error('embedding holds a non-finite value');
    }
    const row = this.matrix.add(embedding);
    this.rowIdentity[row] = identityId;
    const rows = this.rowsOf.get(identityId);
    if (rows) rows.push(row);
    else this.rowsOf.set(identityId, [row]);
  }

  /** Removes an identity and all its samples; returns how many rows went. */
  remove(identityId: string): number {
    const rows = this.rowsOf.get(identityId);
    if (!rows) return 0;
    this.rowsOf.delete(identityId);
    // Highest first: a swap only ever moves the current last row, which is then never one
    // of this identity's rows still waiting to be removed.
    const sorted = [...rows].sort((a, b) => b - a);
    for (const row of sorted) {
      const moved = this.matrix.removeSwap(row);
      if (moved >= 0) {
        const owner = this.rowIdentity[moved]!;
        this.rowIdentity[row] = owner;
        const ownerRows = this.rowsOf.get(owner)!;
        ownerRows[ownerRows.indexOf(moved)] = row;
      }
      this.rowIdentity.length = this.matrix.size;
    }
    return sorted.length;
  }

  /** The best-matching identities, best first; the caller applies its threshold. */
  search(query: Float32Array, opts: IndexSearchOptions): IndexSearchResult {
    const n = this.matrix.size;
    const mode: ScanMode = n <= opts.exactMax ? 'exact' : 'int8';
    if (n === 0 || opts.topK <= 0) return { hits: [], mode, reranked: 0 };
    if (query.length !== this.dim) throw new Error(`query is ${query.length}-D, the index ${this.dim}-D`);
    const scores = this.matrix.scan(query, mode);
    let want = Math.min(n, Math.max(opts.rerank, opts.topK * 4));
    for (;;) {
      const hits = this.rerank(query, topCandidates(scores, want), opts);
      // Identities with many samples can crowd the candidate list: widen it until topK
      // distinct identities are in, or every row was looked at.
      if (hits.length >= opts.topK || want >= n) return { hits: hits.slice(0, opts.topK), mode, reranked: want };
      want = Math.min(n, want * 4);
    }
  }

  /** An identity's best score over its samples (exact), or null when it is not in the index. */
  scoreIdentity(identityId: string, query: Float32Array, rescore?: IndexSearchOptions['rescore']): number | null {
    const rows = this.rowsOf.get(identityId);
    if (!rows) return null;
    let best = -Infinity;
    for (const row of rows) {
      const values = this.matrix.row(row);
      best = Math.max(best, rescore ? rescore(query, values) : dot(query, values));
    }
    return best;
  }

  private rerank(query: Float32Array, rows: Int32Array, opts: IndexSearchOptions): IndexHit[] {
    const best = new Map<string, IndexHit>();
    for (const row of rows) {
      const values = this.matrix.row(row);
      const cosine = dot(query, values);
      const score = opts.rescore ? opts.rescore(query, values) : cosine;
      const id = this.rowIdentity[row]!;
      const prev = best.get(id);
      if (!prev || score > prev.score) best.set(id, { identityId: id, score, cosine });
    }
    return [...best.values()].sort((a, b) => b.score - a.score || (a.identityId < b.identityId ? -1 : 1));
  }
}
