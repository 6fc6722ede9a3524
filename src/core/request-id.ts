import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';
import type { FastifyBaseLogger } from 'fastify';

/** An incoming X-Request-Id is kept when it is a reasonable token; anything else is replaced. */
const ACCEPTED = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/**
 * The request id: the client's X-Request-Id when it is a short printable token (so a
 * proxy's or caller's id follows the request through our logs), a UUID otherwise.
 */
export function requestId(req: IncomingMessage): string {
  const header = req.headers['x-request-id'];
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTED.test(value) ? value : randomUUID();
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * fastify's per-request logger, made only when the request logs something: a pino
 * child costs ~20% of a small route's throughput, and at the default level most
 * requests log nothing. Every line a request does log carries its reqId.
 */
export function lazyChildLogger(base: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  // The app's logger is pino's (buildApp passes one), which has isLevelEnabled.
  const parent = base as unknown as Logger;
  let real: Logger | undefined;
  const get = () => (real ??= parent.child(bindings, opts));
  const logger = {
    get level() {
      return real?.level ?? parent.level;
    },
    set level(value: string) {
      get().level = value;
    },
    silent: () => undefined,
    child: (b: Bindings, o?: ChildLoggerOptions) => get().child(b, o),
    isLevelEnabled: (level: string) => (real ?? parent).isLevelEnabled(level),
  } as Record<string, unknown>;
  for (const level of LEVELS) {
    logger[level] = (...args: unknown[]) => {
      if (!(real ?? parent).isLevelEnabled(level)) return;
      (get()[level] as (...a: unknown[]) => void).apply(real, args);
    };
  }
  return logger as unknown as FastifyBaseLogger;
}
