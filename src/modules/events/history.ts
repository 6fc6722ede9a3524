import type { Database } from 'lmdb';
import type { Logger } from 'pino';
import type { EventType, VigilEvent } from '../../core/event-types.js';
import { RingBuffer } from '../../core/ring-buffer.js';
import { Sequence } from './store.js';

/**
 * The spec's event history: a ring buffer of the last `capacity` events, answered
 * from memory. Once the events store is open it is also written through to LMDB
 * (one record per event, the oldest removed as the ring drops it), so the history
 * survives a restart or kill -9; events.history_size bounds both copies.
 */
export class EventHistory {
  private readonly ring: RingBuffer<VigilEvent>;
  private db: Database<VigilEvent, number> | undefined;
  private log: Logger | undefined;
  /** Keys of the persisted events, oldest first (at most `capacity`). */
  private keys: number[] = [];
  private readonly seq = new Sequence();

  constructor(readonly capacity: number) {
    this.ring = new RingBuffer<VigilEvent>(capacity);
  }

  /**
   * Loads the newest `capacity` events from the last run, drops older records, and
   * persists from now on. Events pushed before (the store opens after the bus
   * subscription) are newer than those on disk and keep their place after them.
   */
  attach(db: Database<VigilEvent, number>, log: Logger): number {
    const early = this.ring.toArray();
    this.ring.clear();
    const stored: { key: number; value: VigilEvent }[] = [];
    for (const { key, value } of db.getRange({ reverse: true })) {
      this.seq.observe(key);
      if (stored.length < this.capacity) stored.push({ key, value });
      else db.remove(key).catch((err: unknown) => log.error({ err }, 'cannot prune event history'));
    }
    stored.reverse();
    this.keys = stored.map((s) => s.key);
    for (const s of stored) this.ring.push(s.value);
    this.db = db;
    this.log = log;
    for (const event of early) this.push(event);
    return stored.length;
  }

  detach(): void {
    this.db = undefined;
  }

  push(event: VigilEvent): void {
    this.ring.push(event);
    const db = this.db;
    if (!db) return;
    const key = this.seq.next();
    this.keys.push(key);
    db.put(key, event).catch((err: unknown) => this.log?.error({ err }, 'cannot persist event history'));
    if (this.keys.length > this.capacity) {
      const old = this.keys.shift()!;
      db.remove(old).catch((err: unknown) => this.log?.error({ err }, 'cannot prune event history'));
    }
  }

  get size(): number {
    return this.ring.length;
  }

  /** Up to `limit` events, newest first, optionally of one type only. */
  recent(limit: number, type?: EventType): VigilEvent[] {
    const out: VigilEvent[] = [];
    for (let i = 0; i < this.ring.length && out.length < limit; i++) {
      const event = this.ring.newest(i)!;
      if (type === undefined || event.type === type) out.push(event);
    }
    return out;
  }
}
