import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import { openGuardedLmdb } from '../../core/lmdb-open.js';
import { StorageGuard } from '../../core/storage-guard.js';
import type { CountingRule } from './counting/rules.js';
import { CountHistory, type BucketCounts } from './count-history.js';

/** A camera as stored: the raw source (with any credentials) never leaves this file and the process. */
export interface StoredCamera {
  camera_id: string;
  source: string;
  loop: boolean;
  created_at: string;
  /** Set when a file source (without loop) played to its end: it is not replayed after a restart. */
  ended_at?: string;
  ended_frames?: number;
  /** Set while the camera is disabled (enable/disable): its stream stays stopped across restarts. */
  disabled?: boolean;
}

export type StoredCounts = { in: number; out: number } | { entered: number; exited: number };

/** Keys of per-camera records: "<camera_id>\u0000<rule_id>" so a camera's records form one range. */
const SEP = '\u0000';
const key = (cameraId: string, ruleId: string) => `${cameraId}${SEP}${ruleId}`;
const range = (cameraId: string) => ({ start: `${cameraId}${SEP}`, end: `${cameraId}\u0001` });

/**
 * Cameras, counting rules and their counts in LMDB under <data_dir>/video. Writes
 * resolve once committed to disk (LMDB's default synchronous commits), so what an
 * API call acknowledged survives kill -9.
 */
export class VideoStore {
  private root: RootDatabase | null = null;
  private camerasDb!: Database<StoredCamera, string>;
  private rulesDb!: Database<CountingRule, string>;
  private countsDb!: Database<StoredCounts, string>;
  /** Time-bucketed counts (count-history.ts). */
  history!: CountHistory;

  constructor(
    private readonly dir: string,
    private readonly guard: StorageGuard = new StorageGuard(dir, 0),
  ) {}

  open(): void {
    this.root = openGuardedLmdb({ path: this.dir }, this.guard);
    this.camerasDb = this.root.openDB<StoredCamera, string>({ name: 'cameras' });
    this.rulesDb = this.root.openDB<CountingRule, string>({ name: 'rules' });
    this.countsDb = this.root.openDB<StoredCounts, string>({ name: 'counts' });
    this.history = new CountHistory(this.root.openDB<BucketCounts, string>({ name: 'history' }));
  }

  async close(): Promise<void> {
    await this.root?.close();
    this.root = null;
  }

  cameras(): StoredCamera[] {
    return [...this.camerasDb.getRange({})].map((e) => e.value);
  }

  async putCamera(camera: StoredCamera): Promise<void> {
    await this.camerasDb.put(camera.camera_id, camera);
  }

  /** The camera, its rules and their counts, in one transaction. */
  async removeCamera(cameraId: string): Promise<void> {
    await this.camerasDb.transaction(() => {
      this.camerasDb.removeSync(cameraId);
      for (const { key: k } of this.rulesDb.getRange(range(cameraId))) this.rulesDb.removeSync(k);
      for (const { key: k } of this.countsDb.getRange(range(cameraId))) this.countsDb.removeSync(k);
    });
    await this.history.remove(cameraId);
  }

  rules(cameraId: string): { rule: CountingRule; counts: StoredCounts | undefined }[] {
    return [...this.rulesDb.getRange(range(cameraId))].map((e) => ({ rule: e.value, counts: this.countsDb.get(e.key) }));
  }

  async putRule(cameraId: string, rule: CountingRule): Promise<void> {
    await this.rulesDb.put(key(cameraId, rule.rule_id), rule);
  }

  async removeRule(cameraId: string, ruleId: string): Promise<void> {
    await this.rulesDb.transaction(() => {
      this.rulesDb.removeSync(key(cameraId, ruleId));
      this.countsDb.removeSync(key(cameraId, ruleId));
    });
    await this.history.remove(cameraId, ruleId);
  }

  async putCounts(cameraId: string, ruleId: string, counts: StoredCounts): Promise<void> {
    await this.countsDb.put(key(cameraId, ruleId), counts);
  }
}

export function videoStoreDir(dataDir: string): string {
  return join(dataDir, 'video');
}
