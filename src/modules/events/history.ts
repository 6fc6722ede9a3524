import type { EventType, VigilEvent } from '../../core/event-types.js';
import { RingBuffer } from '../../core/ring-buffer.js';

/**
 * The spec's in-memory event history: a ring buffer of the last `capacity`
 * events. recent() answers newest first, which is what an operator polling
 * "what just happened" wants and what `limit` cuts naturally.
 */
export class EventHistory {
  private readonly ring: RingBuffer<VigilEvent>;

  constructor(readonly capacity: number) {
    this.ring = new RingBuffer<VigilEvent>(capacity);
  }

  push(event: VigilEvent): void {
    this.ring.push(event);
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
