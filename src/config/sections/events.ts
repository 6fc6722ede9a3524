import { Type } from 'typebox';

/**
 * The spec's four events settings, then the delivery settings the spec leaves open
 * ("Delivery retry and failure handling: not shown"). The retry defaults give a
 * schedule of about six hours (see docs/events.md); tests shrink the
 * base delay to milliseconds.
 */
export const EventsSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Keep the event history, deliver webhooks and mirror to MQTT; false turns the whole module off.' }),
    webhooks_enabled: Type.Boolean({ default: true, description: 'Deliver events to registered webhooks (false: the webhook endpoints answer 503).' }),
    max_workers: Type.Integer({ default: 4, minimum: 1, maximum: 256, description: 'Webhook deliveries in flight at once, over all webhooks.' }),
    history_size: Type.Integer({ default: 1000, minimum: 1, maximum: 1_000_000, description: 'Events kept in the history (in memory, and on disk so it survives a restart).' }),
    delivery_timeout_ms: Type.Integer({
      default: 10_000,
      minimum: 100,
      description: 'Whole-request timeout of one delivery attempt (connect, TLS, headers and body); a timeout is a failed attempt.',
    }),
    include_labels: Type.Boolean({
      default: true,
      description: 'Put identity labels (enrolled names) in webhook and MQTT event payloads; false leaves every label out (receivers still get identity_id), the history on the box keeps them.',
    }),
    ca_file: Type.String({
      default: '',
      description: 'PEM file of extra CA certificates trusted for webhook receivers (private building-network CAs), added to the system CAs.',
    }),
    retry_base_delay_ms: Type.Integer({ default: 5_000, minimum: 1, description: 'Delay before the first retry; each further retry multiplies it by retry_factor.' }),
    retry_factor: Type.Number({ default: 2, minimum: 1, maximum: 10, description: 'Exponential backoff factor between retries.' }),
    retry_max_delay_ms: Type.Integer({
      default: 1_800_000,
      minimum: 1,
      description: "Longest delay between two scheduled attempts (a receiver's Retry-After on 429/503 is honoured as sent, up to 24 h).",
    }),
    retry_jitter: Type.Number({
      default: 0.2,
      minimum: 0,
      maximum: 1,
      description: 'Each delay is multiplied by a random factor in [1 - jitter, 1 + jitter] so receivers are not hit in lockstep.',
    }),
    max_attempts: Type.Integer({ default: 20, minimum: 1, maximum: 1000, description: 'Attempts per delivery (the first one included) before it is marked failed.' }),
    delivery_log_size: Type.Integer({
      default: 200,
      minimum: 1,
      maximum: 100_000,
      description: 'Finished deliveries (delivered or failed) kept per webhook in the delivery log; pending ones are always kept.',
    }),
    outbox_max_pending: Type.Integer({
      default: 100_000,
      minimum: 1,
      description: 'Pending deliveries the durable outbox holds over all webhooks; past it new deliveries are logged as failed (redeliverable) instead of queued.',
    }),
  },
  { additionalProperties: false, default: {} },
);
