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

/**
 * fastify's per-request logger, made only when the request logs something: a pino
 * child costs ~20% of a small route's throughput, and at the default level most
 * requests log nothing. Every line a request does log carries its reqId. A class (one
 * allocation per request), not a bag of closures.
 */
class LazyChildLogger {
  private real: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly opts: ChildLoggerOptions,
  ) {}

  private get logger(): Logger {
    return (this.real ??= this.parent.child(this.bindings, this.opts));
  }

  get level(): string {
    return (this.real ?? this.parent).level;
  }

  set level(value: string) {
    this.logger.level = value;
  }

  isLevelEnabled(level: string): boolean {
    return (this.real ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): Logger {
    return this.logger.child(bindings, opts);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    if (!(this.real ?? this.parent).isLevelEnabled(level)) return;
    const logger = this.logger;
    (logger[level] as (...a: unknown[]) => void).apply(logger, args);
  }
}

/** fastify's childLoggerFactory: the app's logger is pino's (buildApp passes one). */
export function lazyChildLogger(base: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(base as unknown as Logger, bindings, opts) as unknown as FastifyBaseLogger;
}
