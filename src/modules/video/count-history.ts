import type { Database } from 'lmdb';
import type { CountingRule } from './counting/rules.js';

/** The stored bucket and the ones a query may ask for (UTC-aligned). */
export const BASE_BUCKET_MS = 15 * 60_000;
export const BUCKETS = { '15m': BASE_BUCKET_MS, '1h': 3_600_000, '1d': 86_400_000 } as const;
export type BucketName = keyof typeof BUCKETS;

/** One rule's counts within one bucket. Lines fill in/out, zones entered/exited/peak_occupancy. */
export interface BucketCounts {
  type: 'line' | 'zone';
  in: number;
  out: number;
  entered: number;
  exited: number;
  /** Most people inside the zone at once during the bucket (0 for lines). */
  peak_occupancy: number;
}

export interface HistoryRow extends BucketCounts {
  rule_id: string;
  start: string;
  end: string;
}

const SEP = '\u0000';
const pad = (ms: number) => String(ms).padStart(15, '0');
const keyOf = (cameraId: string, startMs: number, ruleId: string) => `${cameraId}${SEP}${pad(startMs)}${SEP}${ruleId}`;
const empty = (type: 'line' | 'zone'): BucketCounts => ({ type, in: 0, out: 0, entered: 0, exited: 0, peak_occupancy: 0 });

export const bucketStart = (ms: number, size: number = BASE_BUCKET_MS) => Math.floor(ms / size) * size;

/**
 * Time-bucketed counts per camera and rule, in LMDB beside the running totals. The
 * stored bucket is 15 minutes (UTC-aligned); hours and days are sums of them (peak
 * occupancy: the maximum). The open bucket's record is rewritten on every count, as
 * the running totals are, so what was counted before a kill -9 is in it after the
 * restart and later counts in the same bucket add to it. Records older than the retention
 * are deleted by prune().
 */
export class CountHistory {
  constructor(private readonly db: Database<BucketCounts, string>) {}

  /** Adds one count (and the zone's occupancy after it) to the bucket of `now`. */
  add(cameraId: string, rule: CountingRule, what: 'in' | 'out' | 'entered' | 'exited' | null, occupancy: number, now: number): Promise<void> {
    const key = keyOf(cameraId, bucketStart(now), rule.rule_id);
    return this.db.transaction(() => {
      const rec = { ...(this.db.get(key) ?? empty(rule.type)) };
      if (what) rec[what]++;
      rec.peak_occupancy = Math.max(rec.peak_occupancy, occupancy);
      this.db.putSync(key, rec);
    });
  }

  /** The stored 15-minute bucket of one rule (zeros when nothing was counted in it). */
  get(cameraId: string, rule: CountingRule, startMs: number): BucketCounts {
    return this.db.get(keyOf(cameraId, startMs, rule.rule_id)) ?? empty(rule.type);
  }

  /**
   * Buckets of `size` in [from, to) with anything counted, oldest first, rules in id
   * order within a bucket; at most `limit` rows, never splitting a bucket across pages
   * (a page holds at least one whole bucket); `next` is where the following page starts.
   */
  query(cameraId: string, from: number, to: number, size: number, limit: number, ruleId?: string): { rows: HistoryRow[]; next: number | null } {
    const rows: HistoryRow[] = [];
    let group = -1;
    let acc = new Map<string, BucketCounts>();
    const flush = (): boolean => {
      if (group < 0) return true;
      if (rows.length > 0 && rows.length + acc.size > limit) return false;
      for (const [id, c] of [...acc].sort(([a], [b]) => (a < b ? -1 : 1))) {
        rows.push({ rule_id: id, start: new Date(group).toISOString(), end: new Date(group + size).toISOString(), ...c });
      }
      return true;
    };
    const range = this.db.getRange({ start: keyOf(cameraId, bucketStart(from, BASE_BUCKET_MS), ''), end: keyOf(cameraId, to, '') });
    for (const { key, value } of range) {
      const [, startText, id] = key.split(SEP) as [string, string, string];
      const start = Number(startText);
      if (start < from || start >= to || (ruleId && id !== ruleId)) continue;
      const g = bucketStart(start, size);
      if (g !== group) {
        if (!flush()) return { rows, next: group };
        group = g;
        acc = new Map();
      }
      const a = acc.get(id) ?? empty(value.type);
      a.in += value.in;
      a.out += value.out;
      a.entered += value.entered;
      a.exited += value.exited;
      a.peak_occupancy = Math.max(a.peak_occupancy, value.peak_occupancy);
      acc.set(id, a);
    }
    if (!flush()) return { rows, next: group };
    return { rows, next: null };
  }

  /** Removes a camera's records, or one rule's (a deleted rule takes its history with it). */
  async remove(cameraId: string, ruleId?: string): Promise<void> {
    await this.db.transaction(() => {
      for (const { key } of this.db.getRange({ start: `${cameraId}${SEP}`, end: `${cameraId}\u0001` })) {
        if (!ruleId || key.endsWith(`${SEP}${ruleId}`)) this.db.removeSync(key);
      }
    });
  }

  /** Deletes the records of buckets that started before `cutoff` (retention); returns how many. */
  async prune(cameraIds: readonly string[], cutoff: number): Promise<number> {
    let n = 0;
    await this.db.transaction(() => {
      for (const cam of cameraIds) {
        for (const { key } of this.db.getRange({ start: `${cam}${SEP}`, end: keyOf(cam, bucketStart(cutoff), '') })) {
          this.db.removeSync(key);
          n++;
        }
      }
    });
    return n;
  }
}
