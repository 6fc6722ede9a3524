import type { Logger } from 'pino';
import type { EventType } from '../../core/event-types.js';
import { MinHeap } from './min-heap.js';
import { Sequence, type DeliveryKey, type DeliveryRecord, type DeliveryStatus, type EventsStore } from './store.js';
import { attemptRecord, newRecord, type Outcome, type PendingJob } from './delivery-record.js';
import { isoWithOffset } from './webhook-store.js';

export type { Outcome, PendingJob };

const MAX_SEQ = Number.MAX_SAFE_INTEGER;
/**
 * A webhook's queue is in creation order, and only its oldest job may go when due: a
 * delivery waiting for its retry holds the ones behind it, so a receiver back from an
 * outage gets the backlog in the order the events happened.
 */
const bySeq = (a: PendingJob, b: PendingJob) => a.seq < b.seq;

/**
 * The durable outbox and the per-webhook delivery log in one LMDB database.
 * Every delivery is a record keyed [webhook_id, seq]; pending records are the
 * outbox (rebuilt into per-webhook heaps at start, so kill -9 loses nothing that
 * was committed), finished ones are the log, pruned to `logSize` per webhook.
 */
export class Outbox {
  private readonly queues = new Map<string, MinHeap<PendingJob>>();
  private readonly finished = new Map<string, number[]>();
  /** Deliveries held for a disabled webhook, oldest first. */
  private readonly held = new Map<string, number[]>();
  private heldTotal = 0;
  private readonly inflight = new Map<number, PendingJob>();
  private order: string[] = [];
  private cursor = 0;
  private pendingTotal = 0;
  private readonly seq = new Sequence();
  /** Deliveries refused because the outbox was full (since start). */
  overflowed = 0;

  constructor(
    private readonly store: EventsStore,
    private readonly opts: { logSize: number; maxPending: number },
    private readonly log: Logger,
  ) {}

  /** Rebuilds the in-memory queues from disk; returns the number of pending deliveries. */
  load(): number {
    for (const { key, value } of this.store.deliveries.getRange()) {
      const [webhookId, seq] = key;
      this.seq.observe(seq);
      if (value.status === 'pending') {
        this.queue(webhookId).push({
          seq,
          webhookId,
          eventId: value.event_id,
          eventType: value.event_type,
          createdAt: value.created_at,
          due: value.next_attempt_at ?? Date.now(),
          attempts: value.attempts,
          body: undefined,
          committed: true,
          cancelled: false,
        });
        this.pendingTotal++;
      } else if (value.status === 'held') {
        this.heldList(webhookId).push(seq);
        this.heldTotal++;
      } else {
        this.finishedList(webhookId).push(seq);
      }
    }
    return this.pendingTotal;
  }

  get pending(): number {
    return this.pendingTotal;
  }

  /** Deliveries held for disabled webhooks. */
  get heldCount(): number {
    return this.heldTotal;
  }

  /**
   * Records a delivery for a disabled webhook without sending it: it is sent, in order,
   * when the webhook is enabled again (release). Counts against outbox_max_pending.
   */
  hold(webhookId: string, event: { id: string; type: EventType }, body: string, now = Date.now()): DeliveryRecord {
    const seq = this.seq.next();
    const at = isoWithOffset(new Date(now));
    if (this.pendingTotal + this.heldTotal >= this.opts.maxPending) return this.refuse(webhookId, seq, event, body, at);
    const record = newRecord(webhookId, seq, event, body, at, 'held', 'webhook disabled: held, sent when it is enabled again');
    void this.write(record);
    this.heldList(webhookId).push(seq);
    this.heldTotal++;
    return record;
  }

  /** Queues a webhook's held deliveries for sending, oldest first, each with a fresh retry schedule. */
  release(webhookId: string, now = Date.now()): number {
    const seqs = this.held.get(webhookId);
    if (!seqs || seqs.length === 0) return 0;
    this.held.delete(webhookId);
    this.heldTotal -= seqs.length;
    let n = 0;
    for (const seq of seqs) {
      const stored = this.store.deliveries.get([webhookId, seq]);
      if (!stored || stored.status !== 'held') {
        this.log.error({ webhook_id: webhookId, delivery_id: seq }, 'held delivery record missing; not replayed');
        continue;
      }
      const job: PendingJob = {
        seq,
        webhookId,
        eventId: stored.event_id,
        eventType: stored.event_type,
        createdAt: stored.created_at,
        due: now,
        attempts: 0,
        body: stored.body,
        committed: true,
        cancelled: false,
      };
      void this.write({ ...stored, status: 'pending', attempts: 0, next_attempt_at: now, updated_at: isoWithOffset(new Date(now)) });
      this.queue(webhookId).push(job);
      this.pendingTotal++;
      n++;
    }
    return n;
  }

  /** Queues one delivery (or logs it failed when the outbox is full) and returns its record. */
  enqueue(webhookId: string, event: { id: string; type: EventType }, body: string, now = Date.now()): DeliveryRecord {
    const seq = this.seq.next();
    const createdAt = isoWithOffset(new Date(now));
    const full = this.pendingTotal + this.heldTotal >= this.opts.maxPending;
    if (full) return this.refuse(webhookId, seq, event, body, createdAt);
    const record: DeliveryRecord = { ...newRecord(webhookId, seq, event, body, createdAt, 'pending', null), next_attempt_at: now };
    const job: PendingJob = {
      seq,
      webhookId,
      eventId: event.id,
      eventType: event.type,
      createdAt,
      due: now,
      attempts: 0,
      body,
      committed: false,
      cancelled: false,
    };
    void this.write(record).then((ok) => {
      job.committed = ok;
      if (ok && job.attempts > 0) job.body = undefined;
    });
    this.queue(webhookId).push(job);
    this.pendingTotal++;
    return record;
  }

  /**
   * The next due job, taking webhooks in turn so one busy receiver cannot starve
   * the others; `canTake` says whether a webhook may have another one in flight.
   */
  takeDue(now: number, canTake: (webhookId: string) => boolean): PendingJob | undefined {
    const n = this.order.length;
    for (let i = 0; i < n; i++) {
      const idx = (this.cursor + i) % n;
      const webhookId = this.order[idx]!;
      const heap = this.queues.get(webhookId);
      const top = heap?.peek();
      if (!heap || !top || top.due > now || !canTake(webhookId)) continue;
      heap.pop();
      this.cursor = (idx + 1) % n;
      this.inflight.set(top.seq, top);
      return top;
    }
    return undefined;
  }

  /** Earliest due time among webhooks that may take another job, or undefined. */
  nextDue(canTake: (webhookId: string) => boolean): number | undefined {
    let min: number | undefined;
    for (const [webhookId, heap] of this.queues) {
      const top = heap.peek();
      if (top && (min === undefined || top.due < min) && canTake(webhookId)) min = top.due;
    }
    return min;
  }

  /** The body of a job about to be attempted. */
  bodyOf(job: PendingJob): string | undefined {
    return job.body ?? this.store.deliveries.get([job.webhookId, job.seq])?.body;
  }

  /** Records the result of an attempt: back into the queue, or into the log. */
  finish(job: PendingJob, outcome: Outcome, now = Date.now()): void {
    this.inflight.delete(job.seq);
    if (job.cancelled) return;
    const body = this.bodyOf(job);
    if (body === undefined) {
      this.log.error({ webhook_id: job.webhookId, delivery_id: job.seq }, 'delivery record vanished; dropping');
      this.pendingTotal--;
      return;
    }
    const record = attemptRecord(job, body, outcome, now);
    void this.write(record);
    if (outcome.status === 'pending') {
      job.due = outcome.due ?? now;
      if (job.committed) job.body = undefined;
      this.queue(job.webhookId).push(job);
      return;
    }
    this.pendingTotal--;
    if (outcome.status === 'held') {
      const list = this.heldList(job.webhookId);
      list.push(job.seq);
      // An in-flight job can finish after younger ones were held: keep the list in order.
      if (list.length > 1 && list[list.length - 2]! > job.seq) list.sort((a, b) => a - b);
      this.heldTotal++;
      return;
    }
    this.addFinished(job.webhookId, job.seq);
  }

  /** Holds every queued (not in-flight) delivery of a webhook that was disabled (410 Gone, PATCH). */
  holdQueued(webhookId: string, reason: string, now = Date.now()): number {
    const heap = this.queues.get(webhookId);
    if (!heap) return 0;
    const jobs = heap.drain().sort((a, b) => a.seq - b.seq);
    for (const job of jobs) {
      // finish() expects jobs taken by takeDue; these come straight from the heap.
      this.inflight.set(job.seq, job);
      this.finish(job, { status: 'held', statusCode: null, error: reason }, now);
    }
    return jobs.length;
  }

  /** Jobs waiting in a webhook's queue (not in flight). */
  queuedFor(webhookId: string): number {
    return this.queues.get(webhookId)?.size ?? 0;
  }

  heldFor(webhookId: string): number {
    return this.held.get(webhookId)?.length ?? 0;
  }

  /** Forgets a deleted webhook: its queue, its in-flight results and its records on disk. */
  async removeWebhook(webhookId: string): Promise<void> {
    const heap = this.queues.get(webhookId);
    if (heap) this.pendingTotal -= heap.drain().length;
    this.queues.delete(webhookId);
    this.order = this.order.filter((id) => id !== webhookId);
    this.cursor = 0;
    for (const job of this.inflight.values()) {
      if (job.webhookId === webhookId && !job.cancelled) {
        job.cancelled = true;
        this.pendingTotal--;
      }
    }
    this.finished.delete(webhookId);
    this.heldTotal -= this.held.get(webhookId)?.length ?? 0;
    this.held.delete(webhookId);
    const db = this.store.deliveries;
    await db.transaction(() => {
      for (const key of db.getKeys({ start: [webhookId, 0], end: [webhookId, MAX_SEQ] })) void db.remove(key);
    });
  }

  /** Resolves once every write issued so far is committed, so a read sees it. */
  async settled(): Promise<void> {
    await this.store.root.committed;
  }

  get(webhookId: string, deliveryId: string): DeliveryRecord | undefined {
    const seq = Number(deliveryId);
    if (!Number.isSafeInteger(seq) || seq <= 0) return undefined;
    return this.store.deliveries.get([webhookId, seq]);
  }

  /** A webhook's deliveries, newest first, optionally of one status. */
  list(webhookId: string, limit: number, status?: DeliveryStatus): DeliveryRecord[] {
    const out: DeliveryRecord[] = [];
    const range = this.store.deliveries.getRange({ start: [webhookId, MAX_SEQ], end: [webhookId, 0], reverse: true });
    for (const { value } of range) {
      if (status && value.status !== status) continue;
      out.push(value);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Pending deliveries of one webhook (in memory, cheap). */
  pendingFor(webhookId: string): number {
    let n = this.queues.get(webhookId)?.size ?? 0;
    for (const job of this.inflight.values()) if (job.webhookId === webhookId && !job.cancelled) n++;
    return n;
  }

  /** Queues the write; resolves true once committed, false (logged) when it failed. Never rejects. */
  private write(record: DeliveryRecord): Promise<boolean> {
    const key: DeliveryKey = [record.webhook_id, Number(record.delivery_id)];
    return this.store.deliveries.put(key, record).then(
      () => true,
      (err: unknown) => {
        this.log.error({ err, webhook_id: record.webhook_id }, 'cannot write delivery record');
        return false;
      },
    );
  }

  private queue(webhookId: string): MinHeap<PendingJob> {
    let heap = this.queues.get(webhookId);
    if (!heap) {
      heap = new MinHeap(bySeq);
      this.queues.set(webhookId, heap);
      this.order.push(webhookId);
    }
    return heap;
  }

  private heldList(webhookId: string): number[] {
    let list = this.held.get(webhookId);
    if (!list) {
      list = [];
      this.held.set(webhookId, list);
    }
    return list;
  }

  /** The outbox is full: the delivery is logged failed, never attempted. */
  private refuse(webhookId: string, seq: number, event: { id: string; type: EventType }, body: string, at: string): DeliveryRecord {
    const record = newRecord(webhookId, seq, event, body, at, 'failed', `outbox full (${this.opts.maxPending} pending or held deliveries); not attempted, redeliver by hand`);
    this.overflowed++;
    void this.write(record);
    this.addFinished(webhookId, seq);
    return record;
  }

  private finishedList(webhookId: string): number[] {
    let list = this.finished.get(webhookId);
    if (!list) {
      list = [];
      this.finished.set(webhookId, list);
    }
    return list;
  }

  /** Adds a finished record to the webhook's log and prunes the oldest past logSize. */
  private addFinished(webhookId: string, seq: number): void {
    const list = this.finishedList(webhookId);
    list.push(seq);
    while (list.length > this.opts.logSize) {
      const old = list.shift()!;
      this.store.deliveries.remove([webhookId, old]).catch((err: unknown) => this.log.error({ err }, 'cannot prune delivery log'));
    }
  }
}
