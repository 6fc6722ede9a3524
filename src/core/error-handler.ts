import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, errorBody } from './errors.js';
import type { ErrorCode } from './error-codes.js';

/** fastify and plugin error codes that are the client's fault, with our stable code for each. */
const FASTIFY_CODES: Record<string, { status: number; code: ErrorCode }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'INVALID_BODY' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'INVALID_BODY' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'BODY_TOO_LARGE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'INVALID_BODY' },
  // readMultipart answers 400 NOT_MULTIPART before fastify's parser can; one code, one status.
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 400, code: 'NOT_MULTIPART' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, code: 'FILE_TOO_LARGE' },
  FST_FILES_LIMIT: { status: 413, code: 'TOO_MANY_FILES' },
  FST_FIELDS_LIMIT: { status: 413, code: 'TOO_MANY_FIELDS' },
  FST_PARTS_LIMIT: { status: 413, code: 'TOO_MANY_PARTS' },
  FST_PROTO_VIOLATION: { status: 400, code: 'INVALID_MULTIPART' },
  FST_ERR_VALIDATION: { status: 400, code: 'VALIDATION_ERROR' },
  // The client's body ended before the multipart form did (busboy sees a premature close).
  ERR_STREAM_PREMATURE_CLOSE: { status: 400, code: 'INVALID_MULTIPART' },
};

const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

function clientGone(raw: IncomingMessage, err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return (raw.destroyed || raw.socket?.destroyed === true || err.message === 'aborted') && (code === undefined || ABORT_CODES.has(code) || err.message === 'aborted');
}

/** The one place that turns any thrown error into {statusCode, code, error, message}. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    // A client that went away mid-request is routine on a building network, not a fault:
    // one debug line, no stack, and nothing to answer on a closed socket.
    if (clientGone(request.raw, err)) {
      request.log.debug({ code: (err as NodeJS.ErrnoException).code }, 'client aborted the request');
      return reply.status(400).send(errorBody(400, 'CLIENT_ABORTED', 'the client closed the connection before the request was read'));
    }
    if (err instanceof AppError) {
      // BUSY is load shedding working as designed: a line per refusal would flood the journal
      // exactly when the box is busiest (the gate counts refusals instead).
      if (err.statusCode >= 500 && err.code !== 'BUSY') request.log.warn({ code: err.code }, err.message);
      else if (err.code === 'BUSY') request.log.debug({ code: err.code }, err.message);
      return reply.status(err.statusCode).send(errorBody(err.statusCode, err.code, err.message, err.details));
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      return reply.status(400).send(errorBody(400, 'VALIDATION_ERROR', fe.message));
    }
    const known = fe.code ? FASTIFY_CODES[fe.code] : undefined;
    if (known) return reply.status(known.status).send(errorBody(known.status, known.code, fe.message));
    // Busboy's own parser errors ("Unexpected end of form", "Malformed part header") are bad input.
    if (/multipart|boundary|Unexpected end of form|Malformed/i.test(fe.message) && !fe.statusCode) {
      return reply.status(400).send(errorBody(400, 'INVALID_MULTIPART', fe.message));
    }
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      const code = (fe.code ?? 'BAD_REQUEST').replace(/^FST_(ERR_)?/, '');
      return reply.status(fe.statusCode).send(errorBody(fe.statusCode, code, fe.message));
    }
    // 5xx hides internals from the client; the log keeps them.
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorBody(500, 'INTERNAL_ERROR', 'internal error; see the daemon log'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody(404, 'ROUTE_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
}
