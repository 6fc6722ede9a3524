import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.js';

/** Methods kept as a label value; anything else (a client's made-up verb) is counted as OTHER. */
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * Request duration by route template (never the raw URL: ids in paths would make a
 * series per id) and status, and GET /metrics itself. Requests that matched no route
 * share the label `unmatched`.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    recordHttp(metrics, request, reply);
    done();
  });
  app.get('/metrics', { schema: { tags: ['admin'], summary: 'Prometheus metrics (text exposition format)', hide: false } }, async (_req, reply) => {
    const body = await metrics.scrape();
    return reply.type(metrics.registry.contentType).send(body);
  });
}

/** What the onResponse hook does for every request (bench/metrics-cost.ts times exactly this). */
export function recordHttp(metrics: Metrics, request: Pick<FastifyRequest, 'method' | 'routeOptions'>, reply: Pick<FastifyReply, 'statusCode' | 'elapsedTime'>): void {
  const route = request.routeOptions.url ?? 'unmatched';
  const method = METHODS.has(request.method) ? request.method : 'OTHER';
  metrics.httpDuration.observe({ method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
}
