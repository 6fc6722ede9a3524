import type { FastifyInstance } from 'fastify';
import { BadRequestError } from './errors.js';

/** The path of the first non-finite number in a parsed query, params or JSON body, if any. */
function nonFinite(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (!value || typeof value !== 'object' || depth > 32) return undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const found = nonFinite(v, path ? `${path}.${k}` : k, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * "1e309" in a query string is coerced by ajv to Infinity, which then passes both `integer`
 * and `maximum` (ajv 8); JSON.parse turns 1e309 in a body into Infinity as well. Every route
 * is guarded here, after validation, so no handler ever sees a non-finite number: the request
 * is a 400 VALIDATION_ERROR, not a 500 from a serializer or an unbounded slice.
 */
export function rejectNonFiniteNumbers(app: FastifyInstance): void {
  app.addHook('preHandler', async (req) => {
    for (const [part, value] of [
      ['querystring', req.query],
      ['params', req.params],
      ['body', req.body],
    ] as const) {
      const at = nonFinite(value, '');
      if (at !== undefined) throw new BadRequestError('VALIDATION_ERROR', `${part}/${at}: must be a finite number`, { field: at });
    }
  });
}
