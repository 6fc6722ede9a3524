import { randomUUID } from 'node:crypto';
import { AppError, NotFoundError } from '../../core/errors.js';
import type { Challenge } from './challenges.js';
import { LivenessSession, type Ending } from './session.js';

/** Frames of one session waiting behind the one being judged; more answer 429. */
export const MAX_QUEUED_FRAMES = 4;

interface Entry {
  session: LivenessSession;
  /** Tail of the session's frame queue: frames are judged one at a time, in arrival order. */
  tail: Promise<void>;
  queued: number;
}

/**
 * The in-memory session table. Sessions live minutes (session_ttl), so a restart ending them
 * is accepted; expired sessions stay readable (state expired, 409 to frames) for another
 * session_ttl before they are forgotten (404).
 */
export class SessionStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxSessions: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  create(challenges: Challenge[], now: number, client: string): LivenessSession {
    if (this.entries.size >= this.maxSessions) {
      throw new AppError(503, 'SESSION_CAPACITY', `${this.entries.size} liveness sessions are held (liveness.max_sessions); retry when some have ended`);
    }
    const session = new LivenessSession(randomUUID(), challenges, now, now + this.ttlMs, client);
    this.entries.set(session.id, { session, tail: Promise.resolve(), queued: 0 });
    return session;
  }

  /** The session, or 404 SESSION_NOT_FOUND. */
  get(id: string): LivenessSession {
    return this.entry(id).session;
  }

  private entry(id: string): Entry {
    const e = this.entries.get(id);
    if (!e) throw new NotFoundError('SESSION_NOT_FOUND', `no liveness session ${id} (unknown, cancelled, or expired more than session_ttl ago)`, { session_id: id });
    return e;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  delete(id: string): LivenessSession {
    const session = this.get(id);
    this.entries.delete(id);
    return session;
  }

  /** True while a frame of this session is being judged or waits to be. */
  busy(id: string): boolean {
    return (this.entries.get(id)?.queued ?? 0) > 0;
  }

  /**
   * Runs `fn` after the session's earlier frames (frames are judged one at a time, so a blink's
   * open-closed-open order is the arrival order). 429 FRAME_QUEUE_FULL past MAX_QUEUED_FRAMES.
   */
  async exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const e = this.entry(id);
    if (e.queued > MAX_QUEUED_FRAMES) {
      throw new AppError(429, 'FRAME_QUEUE_FULL', `session ${id} already has ${e.queued} frames in flight; send frames one at a time`, { session_id: id });
    }
    e.queued++;
    const run = e.tail.then(fn);
    e.tail = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await run;
    } finally {
      e.queued--;
    }
  }

  /**
   * Applies time to every idle session (TTL, challenge timeouts) and forgets sessions expired
   * for more than session_ttl. Sessions with a frame in flight are left to that frame, which
   * is judged at its arrival time. Returns the endings it caused.
   */
  sweep(now: number): { session: LivenessSession; ending: Ending }[] {
    const out: { session: LivenessSession; ending: Ending }[] = [];
    for (const [id, e] of this.entries) {
      if (e.queued > 0) continue;
      const ending = e.session.refresh(now);
      if (ending) out.push({ session: e.session, ending });
      if (e.session.state === 'expired' && now >= e.session.expiresAt + this.ttlMs) this.entries.delete(id);
    }
    return out;
  }
}
