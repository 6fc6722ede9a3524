import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Type } from 'typebox';
import { EVENT_TYPES, isEventType, type EventType } from '../../core/event-types.js';
import { BadRequestError } from '../../core/errors.js';
import { errorResponses } from '../../core/http-schemas.js';
import type { RouteScope } from '../../core/module.js';
import type { VigilEvent } from '../../core/event-types.js';

/** A keep-alive comment this often keeps proxies and browsers from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/**
 * A client that stops reading is cut off once this much is queued for it, so one stalled
 * browser tab cannot make the daemon buffer events without bound.
 */
const MAX_BUFFERED_BYTES = 1024 * 1024;

const StreamQuery = Type.Object(
  { event_type: Type.Optional(Type.String({ description: 'Only events of this type (400 for an unknown type), as in /events/recent.' })) },
  { additionalProperties: false },
);

/**
 * GET /api/v1/events/stream: every event as it is emitted, as Server-Sent Events. Each message
 * is `id: <event id>`, `event: <type>` and `data: <Event JSON>`; a `: ping` comment is sent every
 * 15 s. Streams subscribe to the core bus directly (not through the webhook outbox), so they see
 * exactly what /events/recent records, from the moment they connect.
 */
export function eventStreamRoute(app: RouteScope): void {
  const { bus } = app.vigil;
  const open = new Set<ServerResponse>();

  // Hijacked responses are not idle: end them before the server waits for its connections.
  app.addHook('preClose', async () => {
    for (const raw of open) raw.end();
    open.clear();
  });

  app.get(
    '/api/v1/events/stream',
    {
      schema: {
        tags: ['events'],
        summary: 'Live events as Server-Sent Events (text/event-stream); event_type filters as in /events/recent',
        description:
          'Each message carries `id` (the event id), `event` (its type) and `data` (the Event JSON, as in /events/recent). ' +
          'A `: ping` comment every 15 s keeps the connection open. A client that falls 1 MiB behind is disconnected and should reconnect ' +
          '(EventSource does so by itself) and read /events/recent for what it missed.',
        querystring: StreamQuery,
        response: {
          200: { description: 'An endless text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errorResponses(400, 503),
        },
      },
    },
    async (req, reply) => {
      const raw = req.query.event_type;
      let type: EventType | undefined;
      if (raw !== undefined) {
        if (!isEventType(raw)) {
          throw new BadRequestError('INVALID_EVENT_TYPE', `event_type: unknown event type ${JSON.stringify(raw)}; expected one of ${EVENT_TYPES.join(', ')}`, {
            field: 'event_type',
          });
        }
        type = raw;
      }

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        // Tells nginx-style proxies not to buffer the stream.
        'x-accel-buffering': 'no',
      });
      res.write(': connected\n\n');
      open.add(res);

      const owner = `sse:${randomUUID()}`;
      const send = (event: VigilEvent) => {
        if (type !== undefined && event.type !== type) return;
        if (res.writableLength > MAX_BUFFERED_BYTES) {
          res.end();
          return;
        }
        res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      };
      bus.subscribe(owner, send);
      const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      const cleanup = () => {
        clearInterval(heartbeat);
        bus.unsubscribeOwner(owner);
        open.delete(res);
      };
      res.once('close', cleanup);
      res.once('error', cleanup);
    },
  );
}
