import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventDataMap, EventType, VigilEvent } from './event-types.js';

export type EventListener = (event: VigilEvent) => void | Promise<void>;

/**
 * Typed in-process bus every module publishes through. Listeners are keyed by
 * owner so a module removes all of its own on stop; each call is wrapped so one
 * throwing (or rejecting) listener cannot break emission to the others.
 */
export class EventBus {
  private readonly listeners = new Map<string, EventListener[]>();

  constructor(private readonly log: Logger) {}

  subscribe(owner: string, listener: EventListener): void {
    const list = this.listeners.get(owner) ?? [];
    list.push(listener);
    this.listeners.set(owner, list);
  }

  unsubscribeOwner(owner: string): void {
    this.listeners.delete(owner);
  }

  /** Builds the spec's Event object and hands it to every listener; returns it. */
  emit<T extends EventType>(type: T, source: string, data: EventDataMap[T], cameraId: string | null = null): VigilEvent<T> {
    const event: VigilEvent<T> = {
      id: randomUUID(),
      type,
      timestamp: new Date().toISOString(),
      source,
      data,
      camera_id: cameraId,
    };
    for (const [owner, list] of this.listeners) {
      for (const listener of list) {
        try {
          const result = listener(event as VigilEvent);
          if (result instanceof Promise) {
            result.catch((err: unknown) => this.log.error({ err, owner, type }, 'event listener rejected'));
          }
        } catch (err) {
          this.log.error({ err, owner, type }, 'event listener threw');
        }
      }
    }
    return event;
  }

  listenerCount(): number {
    let n = 0;
    for (const list of this.listeners.values()) n += list.length;
    return n;
  }
}
