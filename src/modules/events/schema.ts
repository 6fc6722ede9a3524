import { Type } from 'typebox';
import { EVENT_TYPES } from '../../core/event-types.js';

/** The spec's Event object. */
export const EventSchema = Type.Object({
  id: Type.String({ description: 'Unique identifier (UUID); receivers dedupe on it (X-Event-ID).' }),
  type: Type.String({ description: `One of: ${EVENT_TYPES.join(', ')}` }),
  timestamp: Type.String({ description: 'ISO 8601 UTC' }),
  source: Type.String({ description: 'Module that produced the event' }),
  data: Type.Object({}, { additionalProperties: true, description: 'Event-specific payload' }),
  camera_id: Type.Union([Type.String(), Type.Null()], { description: 'Set when the event originated from a stream' }),
});

export const RecentQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 100, description: 'Most events returned (newest first).' }),
    event_type: Type.Optional(Type.String({ description: 'Only events of this type (400 for an unknown type).' })),
  },
  { additionalProperties: false },
);

/** The spec's Webhook, plus `enabled` (false once a receiver answered 410 Gone). */
export const WebhookSchema = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'HTTPS endpoint' }),
  event_types: Type.Array(Type.String()),
  created_at: Type.String({ description: 'ISO 8601 with UTC offset' }),
  enabled: Type.Boolean({
    description: 'false after the receiver answered 410 Gone or a PATCH with enabled: false; its events are held meanwhile and sent, in order, when PATCH (or POST .../enable) turns it back on.',
  }),
});

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: 'HTTPS URL of the receiver (http:// is refused).' }),
    event_types: Type.Array(Type.String(), { maxItems: 100, description: `Non-empty; each one of: ${EVENT_TYPES.join(', ')}` }),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'HMAC-SHA256 key for X-Signature-256; stored, never returned.' })),
  },
  { additionalProperties: false },
);

export const PatchWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ maxLength: 2048, description: 'New HTTPS URL (held and pending deliveries go to it).' })),
    event_types: Type.Optional(Type.Array(Type.String(), { maxItems: 100, description: 'New non-empty list of event types.' })),
    secret: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()], { description: 'New HMAC key; null removes signing.' })),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables and sends the held deliveries in order; false disables (new events are held).' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookParams = Type.Object({ webhook_id: Type.String({ maxLength: 100 }) });
export const DeliveryParams = Type.Object({ webhook_id: Type.String({ maxLength: 100 }), delivery_id: Type.String({ maxLength: 40 }) });

export const RemovedResponse = Type.Object({ removed: Type.String() });

export const DeliverySchema = Type.Object({
  delivery_id: Type.String({ description: 'Identifier of this delivery within its webhook' }),
  webhook_id: Type.String(),
  event_id: Type.String({ description: 'The Event id, sent as X-Event-ID' }),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('held')], {
    description: 'held: recorded while the webhook was disabled; sent, in order, when it is enabled again.',
  }),
  attempts: Type.Integer({ description: 'HTTP attempts made so far' }),
  created_at: Type.String(),
  updated_at: Type.String(),
  next_attempt_at: Type.Union([Type.String(), Type.Null()], { description: 'When the next attempt is due (pending only)' }),
  last_status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; null for network errors' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  delivered_at: Type.Union([Type.String(), Type.Null()]),
});

export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 50 }),
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('held')])),
  },
  { additionalProperties: false },
);

export const DeliveryLogResponse = Type.Object({
  webhook_id: Type.String(),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  pending: Type.Integer({ description: 'Deliveries waiting in the outbox (queued or in flight)' }),
  held: Type.Integer({ description: 'Deliveries held while the webhook is disabled (sent when it is enabled again)' }),
  deliveries: Type.Array(DeliverySchema, { description: 'Newest first' }),
});

export const TestBody = Type.Object({ event_type: Type.Optional(Type.String({ description: 'One of the webhook event_types (default: its first)' })) }, { additionalProperties: false });

export const TestResponse = Type.Object({ event: EventSchema, delivery: DeliverySchema });
