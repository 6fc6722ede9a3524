import { join } from 'node:path';
import type { RootDatabase } from 'lmdb';
import { openGuardedLmdb } from '../../core/lmdb-open.js';
import { StorageGuard } from '../../core/storage-guard.js';
import type { Logger } from 'pino';
import { AppError, ServiceUnavailableError } from '../../core/errors.js';
import type { ErrorCode } from '../../core/error-codes.js';

export interface AbuseSettings {
  /** Sliding window, ms. */
  windowMs: number;
  /** Sessions a client address may create per window (0: no limit). */
  maxSessions: number;
  /** Failed or abandoned sessions per window after which the address may create none (0: no limit). */
  maxFailures: number;
}

/** Timestamps (ms) of one client address's recent sessions and failures, oldest first. */
interface ClientRecord {
  sessions: number[];
  failures: number[];
}

/** 429 with the seconds until the limit frees up (the route copies it into Retry-After). */
export class RateLimitError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterSeconds: number,
    client: string,
  ) {
    super(429, code, message, { retry_after_seconds: retryAfterSeconds, client_address: client });
  }
}

/**
 * Per-client-address limits on creating sessions and on failing them, so an attacker cannot
 * iterate presentation attacks freely. Counters are sliding windows kept in LMDB at
 * <data_dir>/liveness, so a restart does not reset them; lmdb-js batches the writes off the
 * request path. A record is pruned to its window whenever it is touched.
 */
export class AbuseLimiter {
  private store: RootDatabase<ClientRecord, string> | null = null;
  /** Write-through cache: lmdb-js commits puts asynchronously, so reads go here first. */
  private readonly cache = new Map<string, ClientRecord>();

  constructor(
    private readonly dataDir: string,
    private readonly settings: AbuseSettings,
    private readonly log: Logger,
    private readonly guard: StorageGuard = new StorageGuard(dataDir, 0),
  ) {}

  /** Opens the counters' LMDB environment (the liveness module's start). */
  open(): void {
    this.store = openGuardedLmdb({ path: join(this.dataDir, 'liveness'), compression: false }, this.guard) as RootDatabase<ClientRecord, string>;
  }

  private get db(): RootDatabase<ClientRecord, string> {
    if (!this.store) throw new ServiceUnavailableError('LIVENESS_UNAVAILABLE', 'the liveness abuse counters are not open (see /api/v1/admin/health)');
    return this.store;
  }

  private record(client: string, now: number): ClientRecord {
    const from = now - this.settings.windowMs;
    const r = this.cache.get(client) ?? this.db.get(client) ?? { sessions: [], failures: [] };
    return { sessions: r.sessions.filter((t) => t > from), failures: r.failures.filter((t) => t > from) };
  }

  private retryAfter(oldest: number, now: number): number {
    return Math.max(1, Math.ceil((oldest + this.settings.windowMs - now) / 1000));
  }

  /** Throws 429 when `client` may not create a session now; otherwise counts the new session. */
  admitSession(client: string, now: number): void {
    const { maxFailures, maxSessions, windowMs } = this.settings;
    const r = this.record(client, now);
    const window = `${Math.round(windowMs / 1000)} s`;
    if (maxFailures > 0 && r.failures.length >= maxFailures) {
      const wait = this.retryAfter(r.failures[r.failures.length - maxFailures]!, now);
      throw new RateLimitError('TOO_MANY_FAILURES', `${r.failures.length} liveness sessions from ${client} failed within ${window}; new sessions are refused for ${wait} s`, wait, client);
    }
    if (maxSessions > 0 && r.sessions.length >= maxSessions) {
      const wait = this.retryAfter(r.sessions[r.sessions.length - maxSessions]!, now);
      throw new RateLimitError('TOO_MANY_SESSIONS', `${r.sessions.length} liveness sessions were created from ${client} within ${window}; retry in ${wait} s`, wait, client);
    }
    r.sessions.push(now);
    this.save(client, r);
  }

  /** Counts a failed (or abandoned) session against `client`. */
  recordFailure(client: string, now: number): void {
    const r = this.record(client, now);
    r.failures.push(now);
    this.save(client, r);
  }

  private save(client: string, r: ClientRecord): void {
    this.cache.set(client, r);
    this.db.put(client, r).catch((err: unknown) => this.log.error({ err, client }, 'could not store liveness abuse counters'));
  }

  /** Drops the records of addresses with nothing left in the window (run at start and by the sweep). */
  prune(now: number): number {
    let n = 0;
    for (const key of new Set([...this.db.getKeys(), ...this.cache.keys()])) {
      const r = this.record(key, now);
      if (r.sessions.length === 0 && r.failures.length === 0) {
        this.cache.delete(key);
        this.db.remove(key).catch((err: unknown) => this.log.error({ err }, 'could not prune liveness abuse counters'));
        n++;
      }
    }
    return n;
  }

  /** Current counts within the window. */
  counts(client: string, now: number): { sessions: number; failures: number } {
    const r = this.record(client, now);
    return { sessions: r.sessions.length, failures: r.failures.length };
  }

  /** Waits for pending writes to commit, then closes the environment. */
  async close(): Promise<void> {
    const db = this.store;
    if (!db) return;
    this.store = null;
    await db.flushed;
    await db.close();
  }
}
