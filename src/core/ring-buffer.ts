/** The last `capacity` items pushed; older ones are dropped. Used for event history and camera frames. */
export class RingBuffer<T> {
  private readonly slots: (T | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    this.slots[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  get length(): number {
    return this.count;
  }

  /** The i-th newest item (0 = the latest), or undefined past the end. */
  newest(i: number): T | undefined {
    return i < this.count ? this.slots[(this.next - 1 - i + this.capacity) % this.capacity] : undefined;
  }

  /** Oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = this.count - 1; i >= 0; i--) out.push(this.newest(i)!);
    return out;
  }

  clear(): void {
    this.slots.fill(undefined);
    this.next = 0;
    this.count = 0;
  }
}
