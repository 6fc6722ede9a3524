import { redactUrl } from '../../core/redact.js';
import { Type } from 'typebox';
import { EVENT_TYPES, isEventType, type EventType } from '../../core/event-types.js';
import { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError } from '../../core/errors.js';
import { errorResponses } from '../../core/http-schemas.js';
import type { RouteScope } from '../../core/module.js';
import type { EventsService } from './events-service.js';
import type { DeliveryRecord, WebhookRecord } from './store.js';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryLogResponse,
  DeliveryParams,
  PatchWebhookBody,
  DeliverySchema,
  EventSchema,
  RecentQuery,
  RemovedResponse,
  TestBody,
  TestResponse,
  WebhookParams,
  WebhookSchema,
} from './schema.js';

const TAGS = ['events'];

function publicWebhook(w: WebhookRecord) {
  // A password in the URL is stored (deliveries use it) but never echoed.
  return { id: w.id, url: redactUrl(w.url), event_types: w.event_types, created_at: w.created_at, enabled: w.enabled };
}

function publicDelivery(d: DeliveryRecord) {
  return {
    delivery_id: d.delivery_id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    created_at: d.created_at,
    updated_at: d.updated_at,
    next_attempt_at: d.next_attempt_at === null ? null : new Date(d.next_attempt_at).toISOString(),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    delivered_at: d.delivered_at,
  };
}

function eventType(value: string, field: string): EventType {
  if (!isEventType(value)) {
    throw new BadRequestError('INVALID_EVENT_TYPE', `${field}: unknown event type ${JSON.stringify(value)}; expected one of ${EVENT_TYPES.join(', ')}`, {
      field,
    });
  }
  return value;
}

function httpsUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BadRequestError('INVALID_URL', `url: not a valid URL: ${JSON.stringify(redactUrl(value))}`, { field: 'url' });
  }
  if (url.protocol !== 'https:') throw new BadRequestError('INVALID_URL', `url: must be an https:// URL, got ${url.protocol}//`, { field: 'url' });
  if (!url.hostname) throw new BadRequestError('INVALID_URL', 'url: has no host', { field: 'url' });
  // Stored as the client wrote it, so the list shows the same string back.
  return value;
}

/** /api/v1/events: the spec's four endpoints plus the delivery log, redelivery, enable and test. */
export function eventsRoutes(app: RouteScope, service: EventsService): void {
  const { config } = app.vigil;

  const requireWebhooks = () => {
    if (!config.events.webhooks_enabled) {
      throw new ServiceUnavailableError('WEBHOOKS_DISABLED', 'webhooks are disabled in the configuration (events.webhooks_enabled: false)');
    }
    try {
      return service.started();
    } catch (err) {
      throw new ServiceUnavailableError('EVENTS_UNAVAILABLE', `the events store is not available: ${(err as Error).message}`);
    }
  };
  const findWebhook = (id: string): WebhookRecord => {
    const w = requireWebhooks().webhooks.get(id);
    if (!w) throw new NotFoundError('WEBHOOK_NOT_FOUND', `no webhook with id ${id}`, { webhook_id: id });
    return w;
  };

  app.get(
    '/api/v1/events/recent',
    {
      schema: {
        tags: TAGS,
        summary: 'Recent events from the history (events.history_size, kept on disk: it survives a restart), newest first',
        querystring: RecentQuery,
        response: { 200: Type.Array(EventSchema), ...errorResponses(400, 503) },
      },
    },
    async (req) => {
      const type = req.query.event_type === undefined ? undefined : eventType(req.query.event_type, 'event_type');
      return service.history.recent(req.query.limit, type);
    },
  );

  app.post(
    '/api/v1/events/webhooks',
    {
      schema: {
        tags: TAGS,
        summary: 'Register a webhook (HTTPS only; the secret is stored and never returned)',
        body: CreateWebhookBody,
        response: { 200: WebhookSchema, ...errorResponses(400, 415, 503) },
      },
    },
    async (req) => {
      const { webhooks } = requireWebhooks();
      const url = httpsUrl(req.body.url);
      if (req.body.event_types.length === 0) {
        throw new BadRequestError('INVALID_EVENT_TYPE', 'event_types: must list at least one event type', { field: 'event_types' });
      }
      const types = req.body.event_types.map((t) => eventType(t, 'event_types'));
      return publicWebhook(await webhooks.create({ url, event_types: types, secret: req.body.secret }));
    },
  );

  app.get('/api/v1/events/webhooks', { schema: { tags: TAGS, summary: 'Registered webhooks, oldest first', response: { 200: Type.Array(WebhookSchema), ...errorResponses(503) } } }, async () =>
    requireWebhooks().webhooks.list().map(publicWebhook),
  );

  app.delete(
    '/api/v1/events/webhooks/:webhook_id',
    {
      schema: {
        tags: TAGS,
        summary: 'Remove a webhook with its pending deliveries and its delivery log',
        params: WebhookParams,
        response: { 200: RemovedResponse, ...errorResponses(404, 503) },
      },
    },
    async (req) => {
      const id = findWebhook(req.params.webhook_id).id;
      await service.deleteWebhook(id);
      return { removed: id };
    },
  );

  app.get(
    '/api/v1/events/webhooks/:webhook_id/deliveries',
    {
      schema: {
        tags: TAGS,
        summary: 'Delivery log of a webhook: pending, held, delivered and failed deliveries, newest first (status= filters)',
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryLogResponse, ...errorResponses(400, 404, 503) },
      },
    },
    async (req) => {
      const w = findWebhook(req.params.webhook_id);
      const { outbox } = service.started();
      await outbox.settled();
      return {
        webhook_id: w.id,
        enabled: w.enabled,
        disabled_reason: w.disabled_reason,
        pending: outbox.pendingFor(w.id),
        held: outbox.heldFor(w.id),
        deliveries: outbox.list(w.id, req.query.limit, req.query.status).map(publicDelivery),
      };
    },
  );

  app.post(
    '/api/v1/events/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
    {
      schema: {
        tags: TAGS,
        summary: 'Send a finished delivery again as a new delivery (same event, same X-Event-ID)',
        params: DeliveryParams,
        response: { 202: DeliverySchema, ...errorResponses(404, 409, 503) },
      },
    },
    async (req, reply) => {
      const w = findWebhook(req.params.webhook_id);
      const { outbox } = service.started();
      await outbox.settled();
      const original = outbox.get(w.id, req.params.delivery_id);
      if (!original) throw new NotFoundError('DELIVERY_NOT_FOUND', `no delivery ${req.params.delivery_id} for webhook ${w.id}`);
      if (!w.enabled) throw new ConflictError('WEBHOOK_DISABLED', `webhook ${w.id} is disabled (${w.disabled_reason ?? ''}); enable it first`);
      if (original.status === 'pending') {
        throw new ConflictError('DELIVERY_PENDING', `delivery ${original.delivery_id} is still pending; it is retried automatically`);
      }
      return reply.status(202).send(publicDelivery(service.redeliver(w, original)));
    },
  );

  app.patch(
    '/api/v1/events/webhooks/:webhook_id',
    {
      schema: {
        tags: TAGS,
        summary: 'Edit a webhook (url, event_types, secret) and enable or disable it; enabling sends what it missed, in order',
        params: WebhookParams,
        body: PatchWebhookBody,
        response: { 200: WebhookSchema, ...errorResponses(400, 404, 415, 503) },
      },
    },
    async (req) => {
      const w = findWebhook(req.params.webhook_id);
      const { webhooks } = service.started();
      const body = req.body;
      // Validate everything before changing anything, with the same rules as POST.
      const url = body.url === undefined ? undefined : httpsUrl(body.url);
      let types: EventType[] | undefined;
      if (body.event_types !== undefined) {
        if (body.event_types.length === 0) {
          throw new BadRequestError('INVALID_EVENT_TYPE', 'event_types: must list at least one event type', { field: 'event_types' });
        }
        types = body.event_types.map((t) => eventType(t, 'event_types'));
      }
      let record = (await webhooks.update(w.id, { url, event_types: types, secret: body.secret })) ?? w;
      if (body.enabled === true && !record.enabled) record = (await service.enable(w.id)) ?? record;
      if (body.enabled === false && record.enabled) record = (await service.disable(w.id)) ?? record;
      return publicWebhook(record);
    },
  );

  app.post(
    '/api/v1/events/webhooks/:webhook_id/enable',
    {
      schema: {
        tags: TAGS,
        summary: 'Re-enable a webhook disabled by 410 Gone; the deliveries held meanwhile are sent in order',
        params: WebhookParams,
        response: { 200: WebhookSchema, ...errorResponses(404, 503) },
      },
    },
    async (req) => {
      const w = findWebhook(req.params.webhook_id);
      return publicWebhook((await service.enable(w.id)) ?? w);
    },
  );

  app.post(
    '/api/v1/events/webhooks/:webhook_id/test',
    {
      schema: {
        tags: TAGS,
        summary: 'Queue a test delivery (data.test: true) of one subscribed type to this webhook',
        params: WebhookParams,
        body: TestBody,
        response: { 202: TestResponse, ...errorResponses(400, 404, 409, 503) },
      },
      // The body is optional: no body means {} (the webhook's first type).
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req, reply) => {
      const w = findWebhook(req.params.webhook_id);
      if (!w.enabled) throw new ConflictError('WEBHOOK_DISABLED', `webhook ${w.id} is disabled (${w.disabled_reason ?? ''}); enable it first`);
      const requested = req.body.event_type;
      const type = requested === undefined ? w.event_types[0]! : eventType(requested, 'event_type');
      if (!w.event_types.includes(type)) {
        throw new BadRequestError('INVALID_EVENT_TYPE', `event_type: webhook ${w.id} is not subscribed to ${type}`, { field: 'event_type' });
      }
      const { event, delivery } = service.sendTest(w, type);
      return reply.status(202).send({ event, delivery: publicDelivery(delivery) });
    },
  );
}
