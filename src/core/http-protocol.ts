import { readFileSync } from 'node:fs';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyServerOptions } from 'fastify';
import type { VigilConfig } from '../config/schema.js';
import { errorBody } from './errors.js';

/**
 * Everything below the router: timeouts, TLS, and the errors Node's HTTP parser and fastify's
 * router answer before any route runs. fastify's defaults leave requestTimeout and
 * connectionTimeout at 0 (a slow client is held forever) and answer parser errors without our
 * `code` field; here every one gets the one error shape (docs/security.md, "HTTP timeouts").
 */

/** The largest body any route accepts: four files at max_upload_bytes plus the text fields. */
export function maxRequestBytes(config: VigilConfig): number {
  return 4 * config.server.max_upload_bytes + 2 * 1024 * 1024;
}

function rawError(status: number, code: string, message: string): string {
  const body = JSON.stringify(errorBody(status, code, message));
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Node's parser error codes (llhttp HPE_*, request timeout) as status and stable code. */
function classifyClientError(code: string | undefined): { status: number; code: string; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'REQUEST_TIMEOUT', message: 'the request headers or body did not arrive in time' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'HEADERS_TOO_LARGE', message: 'the request line and headers exceed the allowed size' };
    case 'HPE_URI_TOO_LONG':
      return { status: 414, code: 'URL_TOO_LONG', message: 'the request URL is too long' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
    case 'HPE_INVALID_CHUNK_SIZE':
      return { status: 400, code: 'INVALID_CHUNKED_BODY', message: 'the chunked request body is malformed' };
    default:
      return { status: 400, code: 'MALFORMED_REQUEST', message: `the request could not be parsed as HTTP/1.1${code ? ` (${code})` : ''}` };
  }
}

export function httpServerOptions(config: VigilConfig): Partial<FastifyServerOptions> & Record<string, unknown> {
  const s = config.server;
  const nodeHttp = {
    headersTimeout: s.headers_timeout_ms,
    requestTimeout: s.request_timeout_ms,
    // Node checks the two timeouts above on this interval (30 s by default): a header trickle
    // would otherwise be held up to 30 s past its limit.
    connectionsCheckingInterval: Math.min(1_000, Math.floor(s.headers_timeout_ms / 2)),
  };
  const tls = s.tls_cert_file && s.tls_key_file ? { cert: readFileSync(s.tls_cert_file), key: readFileSync(s.tls_key_file) } : null;
  return {
    connectionTimeout: s.idle_timeout_ms,
    keepAliveTimeout: s.keep_alive_timeout_ms,
    requestTimeout: s.request_timeout_ms,
    ...(tls ? { https: { ...nodeHttp, ...tls } } : { http: nodeHttp }),
    clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
      // A reset or an already closed socket has nobody to answer; a client going away is routine.
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed) {
        this.log.debug({ code: err.code }, 'client connection closed');
        return;
      }
      const c = classifyClientError(err.code);
      this.log.debug({ code: err.code, status: c.status }, 'client protocol error');
      if (socket.writable) socket.end(rawError(c.status, c.code, c.message));
      socket.destroySoon();
    },
    frameworkErrors(err, request, reply) {
      const e = err as { code?: string; statusCode?: number; message: string };
      const status = e.statusCode && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 400;
      const code = e.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'URL_TOO_LONG' : e.code === 'FST_ERR_BAD_URL' ? 'BAD_URL' : 'BAD_REQUEST';
      request.log.debug({ code: e.code }, 'framework error');
      void (reply as FastifyReply).status(status).send(errorBody(status, code, e.message));
    },
  };
}

/**
 * Refuses a body larger than any route accepts from its Content-Length, before reading it:
 * on `Expect: 100-continue` with a 413 instead of `100 Continue` (Node's checkContinue), and
 * for every other request in onRequest, so a 1 GB announcement is not streamed in to find out.
 */
export function installBodyAdmission(app: FastifyInstance, config: VigilConfig): void {
  const limit = maxRequestBytes(config);
  const tooLarge = (length: number) => `the request body (${length} bytes) exceeds the ${limit} bytes any endpoint accepts`;
  const announced = (req: IncomingMessage): number => {
    const n = Number(req.headers['content-length']);
    return Number.isFinite(n) ? n : 0;
  };
  const server = app.server as Server;
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const length = announced(req);
    if (length > limit) {
      app.log.debug({ content_length: length }, 'refused Expect: 100-continue');
      const body = JSON.stringify(errorBody(413, 'BODY_TOO_LARGE', tooLarge(length)));
      res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
      res.end(body);
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  app.addHook('onRequest', async (request, reply) => {
    const length = announced(request.raw);
    if (length > limit) {
      reply.header('connection', 'close');
      return reply.status(413).send(errorBody(413, 'BODY_TOO_LARGE', tooLarge(length)));
    }
  });
}
