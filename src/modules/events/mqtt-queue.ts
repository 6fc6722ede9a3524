import type { Logger } from 'pino';
import { Sequence, type EventsStore } from './store.js';

export interface QueuedMessage {
  seq: number;
  topic: string;
  payload: string;
}

/**
 * Event messages waiting for the broker's PUBACK, durable in LMDB and bounded:
 * every event goes through here, so what was produced while the broker was away
 * (or before a kill -9) is published after the next connect. Past `capacity` the
 * oldest waiting message is dropped and counted.
 */
export class MqttQueue {
  private waiting: (QueuedMessage | undefined)[] = [];
  private head = 0;
  private readonly inflight = new Map<number, QueuedMessage>();
  private readonly seq = new Sequence();
  dropped = 0;

  constructor(
    private readonly store: EventsStore,
    private readonly capacity: number,
    private readonly log: Logger,
  ) {}

  load(): number {
    this.waiting = [];
    this.head = 0;
    for (const { key, value } of this.store.mqtt.getRange()) {
      this.seq.observe(key);
      this.waiting.push({ seq: key, topic: value.topic, payload: value.payload });
    }
    // A smaller queue_size than last run: keep the newest.
    while (this.size > this.capacity) this.dropOldest();
    return this.size;
  }

  get size(): number {
    return this.waiting.length - this.head + this.inflight.size;
  }

  get inflightCount(): number {
    return this.inflight.size;
  }

  push(topic: string, payload: string): void {
    if (this.size >= this.capacity) this.dropOldest();
    const msg: QueuedMessage = { seq: this.seq.next(), topic, payload };
    this.waiting.push(msg);
    this.store.mqtt.put(msg.seq, { topic, payload }).catch((err: unknown) => this.log.error({ err }, 'cannot queue MQTT message'));
  }

  /** The oldest waiting message, now in flight. */
  take(): QueuedMessage | undefined {
    if (this.head >= this.waiting.length) return undefined;
    const msg = this.waiting[this.head]!;
    this.waiting[this.head] = undefined;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    this.inflight.set(msg.seq, msg);
    return msg;
  }

  /** The broker has it: forget it. */
  ack(seq: number): void {
    if (!this.inflight.delete(seq)) return;
    this.store.mqtt.remove(seq).catch((err: unknown) => this.log.error({ err }, 'cannot remove published MQTT message'));
  }

  /** The connection went away before the PUBACKs: in-flight messages go back to the front, in order. */
  requeueInflight(): void {
    if (this.inflight.size === 0) return;
    const back: (QueuedMessage | undefined)[] = [...this.inflight.values()].sort((a, b) => a.seq - b.seq);
    this.inflight.clear();
    this.waiting = [...back, ...this.waiting.slice(this.head)];
    this.head = 0;
  }

  private dropOldest(): void {
    if (this.head >= this.waiting.length) return;
    const msg = this.take()!;
    this.inflight.delete(msg.seq);
    this.dropped++;
    this.store.mqtt.remove(msg.seq).catch(() => undefined);
    if (this.dropped === 1 || this.dropped % 1000 === 0) {
      this.log.warn({ dropped: this.dropped, capacity: this.capacity }, 'MQTT queue full: dropping the oldest messages');
    }
  }
}
