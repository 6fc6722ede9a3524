import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import { openGuardedLmdb } from '../../core/lmdb-open.js';
import { StorageGuard } from '../../core/storage-guard.js';
import type { EventType, VigilEvent } from '../../core/event-types.js';

/** A registered webhook as stored (the secret never leaves the store through the API). */
export interface WebhookRecord {
  id: string;
  url: string;
  event_types: EventType[];
  created_at: string;
  secret: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
}

/** held: recorded while the webhook is disabled, sent when it is enabled again (in order). */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'held';

/** One delivery of one event to one webhook: the outbox entry while pending, the log entry after. */
export interface DeliveryRecord {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryStatus;
  attempts: number;
  created_at: string;
  updated_at: string;
  /** ms since epoch of the next attempt while pending; null once finished. */
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  /** The exact bytes sent (the Event JSON), kept so retries and redeliveries sign the same body. */
  body: string;
}

/** Delivery keys sort by webhook, then by creation sequence: a webhook's log is one key range. */
export type DeliveryKey = [webhookId: string, seq: number];

/** MQTT messages waiting for the broker's PUBACK, in publish order. */
export interface MqttQueued {
  topic: string;
  payload: string;
}

export interface EventsStore {
  root: RootDatabase;
  webhooks: Database<WebhookRecord, string>;
  deliveries: Database<DeliveryRecord, DeliveryKey>;
  mqtt: Database<MqttQueued, number>;
  /** The persisted copy of the event history (events.history_size newest). */
  history: Database<VigilEvent, number>;
  close(): Promise<void>;
}

/**
 * The events module's one LMDB environment at <data_dir>/events. Writes are
 * asynchronous and batched into transactions by lmdb-js; a committed write
 * survives kill -9 (the pages are in the OS cache; overlappingSync flushes them).
 */
export function openEventsStore(dataDir: string, guard: StorageGuard = new StorageGuard(dataDir, 0)): EventsStore {
  const path = join(dataDir, 'events');
  const root = openGuardedLmdb({ path, compression: false }, guard);
  return {
    root,
    webhooks: root.openDB<WebhookRecord, string>({ name: 'webhooks' }),
    deliveries: root.openDB<DeliveryRecord, DeliveryKey>({ name: 'deliveries' }),
    mqtt: root.openDB<MqttQueued, number>({ name: 'mqtt_outbox' }),
    history: root.openDB<VigilEvent, number>({ name: 'history' }),
    close: () => root.close(),
  };
}

/**
 * Monotonic sequence numbers that keep increasing across restarts: microseconds
 * since the epoch, bumped past the last one handed out (and past `floor`, the
 * largest found on disk), so keys sort by creation time. Stays below 2^53 until 2255.
 */
export class Sequence {
  private last = 0;

  constructor(floor = 0) {
    this.last = floor;
  }

  next(): number {
    this.last = Math.max(this.last + 1, Date.now() * 1000);
    return this.last;
  }

  observe(seq: number): void {
    if (seq > this.last) this.last = seq;
  }
}
