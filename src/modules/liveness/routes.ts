import { errorResponses, multipartDoc } from '../../core/http-schemas.js';
import type { RouteScope } from '../../core/module.js';
import { readMultipart, requireFile } from '../../core/multipart-form.js';
import { RateLimitError } from './abuse-limiter.js';
import { emptyFrameTimings, type FrameTimings, type LivenessService } from './liveness-service.js';
import { CancelResponseSchema, CreateQuerySchema, CreateResponseSchema, FrameResultSchema, SessionInfoSchema, SessionParamsSchema } from './schema.js';

/** Server-Timing header with the per-stage breakdown of a frame (bench/liveness.ts reads it). */
function serverTiming(t: FrameTimings): string {
  return Object.entries(t)
    .map(([k, v]) => `${k};dur=${v.toFixed(2)}`)
    .join(', ');
}

/** The spec's four active-liveness endpoints (503 MODULE_DISABLED while liveness.enabled is false: see core/module.ts). */
export async function livenessRoutes(app: RouteScope, service: LivenessService): Promise<void> {
  const tags = ['liveness'];

  app.post(
    '/api/v1/liveness/sessions',
    {
      schema: {
        tags,
        summary: 'Create a session with randomly drawn challenges',
        querystring: CreateQuerySchema,
        response: { 200: CreateResponseSchema, ...errorResponses(400, 429, 503) },
      },
    },
    async (request, reply) => {
      try {
        return service.createSession(request.ip, request.query.num_challenges, request.query.timeout_seconds);
      } catch (err) {
        if (err instanceof RateLimitError) reply.header('retry-after', String(err.retryAfterSeconds));
        throw err;
      }
    },
  );

  app.post(
    '/api/v1/liveness/sessions/:session_id/frame',
    {
      schema: {
        tags,
        summary: 'Submit one camera frame for the current challenge',
        params: SessionParamsSchema,
        consumes: ['multipart/form-data'],
        response: { 200: FrameResultSchema, ...errorResponses(400, 404, 409, 413, 415, 422, 429, 503) },
      },
      config: { multipartDoc: multipartDoc([{ name: 'image', file: true, required: true, description: 'Camera frame as captured (not mirrored)' }]) },
    },
    async (request, reply) => {
      const arrivedAt = service.deps.clock();
      const form = await readMultipart(request);
      const image = requireFile(form, 'image');
      const timings = emptyFrameTimings();
      const { session_id } = request.params;
      const result = await service.submitFrame(session_id, image, arrivedAt, timings);
      reply.header('server-timing', serverTiming(timings));
      return result;
    },
  );

  app.get(
    '/api/v1/liveness/sessions/:session_id',
    {
      schema: {
        tags,
        summary: 'Session info: session_id, challenges, state and timing',
        params: SessionParamsSchema,
        response: { 200: SessionInfoSchema, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => service.info(request.params.session_id),
  );

  app.delete(
    '/api/v1/liveness/sessions/:session_id',
    {
      schema: {
        tags,
        summary: 'Cancel a session (it is forgotten; later requests answer 404)',
        params: SessionParamsSchema,
        response: { 200: CancelResponseSchema, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => service.cancel(request.params.session_id),
  );
}
