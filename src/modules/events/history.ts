import type { EventType, VigilEvent } from '../../core/event-types.js';

/**
 * The spec's in-memory event history: a ring buffer of the last `capacity`
 * events. recent() answers newest first, which is what an operator polling
 * "what just happened" wants and what `limit` cuts naturally.
 */
export class EventHistory {
  private readonly ring: (VigilEvent | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.ring = new Array<VigilEvent | undefined>(capacity);
  }

  push(event: VigilEvent): void {
    this.ring[this.next] = event;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  get size(): number {
    return this.count;
  }

  /** Up to `limit` events, newest first, optionally of one type only. */
  recent(limit: number, type?: EventType): VigilEvent[] {
    const out: VigilEvent[] = [];
    for (let i = 1; i <= this.count && out.length < limit; i++) {
      const event = this.ring[(this.next - i + this.capacity) % this.capacity];
      if (event && (type === undefined || event.type === type)) out.push(event);
    }
    return out;
  }
}
