import type { EventType } from '../../core/event-types.js';
import type { DeliveryRecord, DeliveryStatus } from './store.js';
import { isoWithOffset } from './webhook-store.js';

/** A pending delivery as the scheduler sees it; the LMDB record is the durable copy. */
export interface PendingJob {
  seq: number;
  webhookId: string;
  eventId: string;
  eventType: EventType;
  createdAt: string;
  /** ms since epoch of the next attempt. */
  due: number;
  attempts: number;
  /** Kept in memory until the record is committed and tried once, then read back from LMDB. */
  body: string | undefined;
  committed: boolean;
  /** Set when the webhook is deleted while this job is in flight: its result is dropped. */
  cancelled: boolean;
}

export interface Outcome {
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  /** Next attempt time (ms) when status stays pending. */
  due?: number;
}

/** The record of a delivery not yet attempted. */
export function newRecord(webhookId: string, seq: number, event: { id: string; type: EventType }, body: string, at: string, status: DeliveryRecord['status'], error: string | null): DeliveryRecord {
  return {
    delivery_id: String(seq),
    webhook_id: webhookId,
    event_id: event.id,
    event_type: event.type,
    status,
    attempts: 0,
    created_at: at,
    updated_at: at,
    next_attempt_at: null,
    last_status_code: null,
    last_error: error,
    delivered_at: null,
    body,
  };
}

/** The record of a delivery after an attempt (or a hold): pending again, delivered, failed or held. */
export function attemptRecord(job: PendingJob, body: string, outcome: Outcome, now: number): DeliveryRecord {
  const at = isoWithOffset(new Date(now));
  return {
    delivery_id: String(job.seq),
    webhook_id: job.webhookId,
    event_id: job.eventId,
    event_type: job.eventType,
    status: outcome.status,
    attempts: job.attempts,
    created_at: job.createdAt,
    updated_at: at,
    next_attempt_at: outcome.status === 'pending' ? (outcome.due ?? now) : null,
    last_status_code: outcome.statusCode,
    last_error: outcome.error,
    delivered_at: outcome.status === 'delivered' ? at : null,
    body,
  };
}
