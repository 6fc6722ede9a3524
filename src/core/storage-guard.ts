import { mkdirSync, statfsSync } from 'node:fs';
import type { Logger } from 'pino';
import { AppError } from './errors.js';

/** 507: the data disk has too little space for a write; nothing was written, reads keep working. */
export class StorageFullError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(507, 'STORAGE_FULL', message, details);
  }
}

/**
 * ok: writes go through. full: free space is under the reserve, writes are refused
 * before they reach LMDB and resume by themselves when space returns. failed: an LMDB
 * commit failed anyway (the disk filled faster than the reserve); lmdb-js cannot write
 * to that environment again in this process (measured: later transactions hang and its
 * heap gets corrupted), so writes stay refused and the process asks for a restart once
 * space is back.
 */
export type StorageState = 'ok' | 'full' | 'failed';

export interface StorageReport {
  state: StorageState;
  free_bytes: number | null;
  reserve_bytes: number;
  detail: string;
}

const MB = 1024 * 1024;
/** Free space that counts as "space is back" for a restart, whatever the reserve. */
const RESTART_MIN_FREE = 8 * MB;

/**
 * The one gate in front of every write to the data folder. lmdb-js does not survive a
 * failed commit (see GUIDE: an unhandled rejection, then hangs and a corrupted heap;
 * a fresh environment on a full tmpfs even dies of SIGBUS), so the defence is to never
 * let it reach ENOSPC: each write first checks that the file system keeps
 * `reserveBytes` free (one statfs, microseconds).
 */
export class StorageGuard {
  private failedWith: string | null = null;
  private full = false;
  private lastFree: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Nesting of guarded transaction callbacks: writes inside one were admitted with it. */
  transactionDepth = 0;
  /** Called once a restart is needed (a failed commit, or a store that could not open) and space is back. */
  onRestartNeeded: ((why: string) => void) | null = null;
  private restartWhy: string | null = null;

  constructor(
    readonly dir: string,
    readonly reserveBytes: number,
    private readonly log?: Logger,
  ) {}

  /** Free bytes for an unprivileged writer on the data folder's file system. */
  freeBytes(): number | null {
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch {
      // a full disk may refuse even the folder; statfs on what exists tells
    }
    try {
      const s = statfsSync(this.dir);
      this.lastFree = s.bavail * s.bsize;
    } catch {
      this.lastFree = null;
    }
    return this.lastFree;
  }

  get state(): StorageState {
    return this.failedWith ? 'failed' : this.full ? 'full' : 'ok';
  }

  /** Throws 507 STORAGE_FULL unless a write may go ahead now. */
  assertWritable(): void {
    if (this.transactionDepth > 0) return;
    if (this.failedWith) throw this.error();
    const free = this.freeBytes();
    const low = free !== null && free < this.reserveBytes;
    if (low !== this.full) this.transition(low);
    if (low) throw this.error();
  }

  /** A write failed below the guard: remember it, and hand the caller a 507 instead of a bare 500. */
  translate(err: unknown): unknown {
    if (err instanceof StorageFullError || !isLmdbWriteFailure(err)) return err;
    this.fault(err);
    return this.error();
  }

  /** An LMDB commit failed: refuse writes until a restart, which is requested once space is back. */
  fault(err: unknown): void {
    const e = err as { message?: string; commitError?: Promise<unknown> };
    // lmdb-js rejects this later, whether or not anyone listens.
    e.commitError?.catch(() => undefined);
    if (this.failedWith) return;
    this.failedWith = e.message ?? String(err);
    this.log?.error({ err: this.failedWith, free_bytes: this.freeBytes() }, 'storage write failed: writes refused (507 STORAGE_FULL) until space returns and the daemon restarts; reads keep working');
    this.needRestart(`an LMDB commit failed (${this.failedWith})`);
  }

  /** A store could not be opened for lack of space: the module runs without it until a restart. */
  needRestart(why: string): void {
    this.restartWhy ??= why;
    this.poll();
  }

  /** Re-reads free space: logs transitions and asks for the restart once there is room again. */
  poll(): void {
    const free = this.freeBytes();
    const low = free !== null && free < this.reserveBytes;
    if (!this.failedWith && low !== this.full) this.transition(low);
    // "Space is back" needs real room, also with no reserve configured: restarting into
    // the same full disk would only fail again.
    const roomy = free !== null && free >= Math.max(this.reserveBytes, RESTART_MIN_FREE);
    if (this.restartWhy && roomy && this.onRestartNeeded) {
      const why = this.restartWhy;
      this.restartWhy = null;
      this.onRestartNeeded(why);
    }
  }

  start(pollMs = 2000): void {
    this.poll();
    this.timer ??= setInterval(() => this.poll(), pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  report(): StorageReport {
    const free = this.lastFree ?? this.freeBytes();
    const freeText = free === null ? 'unknown' : `${(free / MB).toFixed(1)} MB`;
    const detail =
      this.state === 'ok'
        ? `${freeText} free (reserve ${(this.reserveBytes / MB).toFixed(0)} MB)`
        : this.state === 'full'
          ? `data disk full: ${freeText} free, under the ${(this.reserveBytes / MB).toFixed(0)} MB reserve; writes answer 507 STORAGE_FULL, reads work, writes resume when space returns`
          : `a write failed (${this.failedWith}); writes answer 507 STORAGE_FULL until space returns and the daemon restarts; ${freeText} free`;
    return { state: this.state, free_bytes: free, reserve_bytes: this.reserveBytes, detail };
  }

  private transition(low: boolean): void {
    this.full = low;
    if (low) this.log?.error({ free_bytes: this.lastFree, reserve_bytes: this.reserveBytes }, 'data disk full: writes refused with 507 STORAGE_FULL, reads keep working');
    else this.log?.warn({ free_bytes: this.lastFree }, 'data disk has space again: writes resume');
  }

  private error(): StorageFullError {
    const r = this.report();
    return new StorageFullError(`cannot store: ${r.detail}`, { storage: r.state });
  }
}

/** What lmdb-js throws or rejects with when a commit or a page write fails (ENOSPC, EIO on a short write). */
export function isLmdbWriteFailure(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { message?: unknown; commitError?: unknown; code?: unknown };
  if (e.commitError !== undefined) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return /Commit failed|No space left on device|MDB_MAP_FULL|Input\/output error|Attempting to write page/.test(msg) || e.code === 'ENOSPC';
}
