import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Request validation policy (docs/security.md, "Input validation"):
 *
 * - JSON bodies are validated as sent: no type coercion, so `camera_id: 123` is a 400
 *   rather than silently becoming "123", and `strictNumbers` refuses non-finite numbers
 *   (JSON.parse turns 1e309 into Infinity).
 * - Query strings and path parameters are text on the wire, so they are coerced to the
 *   schema's types. Ajv skips its range checks (minimum, maximum) for a value it has just
 *   coerced to Infinity, and its coercion accepts "Infinity" and "1e309" for both number and
 *   integer, so after a successful validation every number in the coerced object must be
 *   finite: one rule for every route, rather than a check in each handler.
 */
const SHARED = { removeAdditional: false, allErrors: false, strictNumbers: true } as const;

type Validator = (data: unknown) => unknown;

/** Ajv's own validation error shape, so fastify words it like any other ("querystring/x must be finite"). */
function nonFiniteError(fn: Validator, key: string): false {
  (fn as unknown as { errors: unknown[] }).errors = [{ instancePath: `/${key}`, schemaPath: '#/finite', keyword: 'finite', params: {}, message: 'must be a finite number' }];
  return false;
}

function firstNonFinite(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (typeof value === 'number' && !Number.isFinite(value)) return key;
    if (Array.isArray(value) && value.some((v) => typeof v === 'number' && !Number.isFinite(v))) return key;
  }
  return undefined;
}

/** fastify's schemaController compilers: strict for bodies, coercing but finite for the URL. */
export function validationSchemaController(): NonNullable<FastifyServerOptions['schemaController']> {
  const pool = AjvCompiler();
  return {
    compilersFactory: {
      buildValidator: (externalSchemas, ajvOptions) => {
        const plugins = ajvOptions?.plugins ?? [];
        const strict = pool(externalSchemas, { customOptions: { ...SHARED, coerceTypes: false }, plugins });
        const coercing = pool(externalSchemas, { customOptions: { ...SHARED, coerceTypes: 'array' }, plugins });
        return (route) => {
          if (route.httpPart === 'body') return strict(route);
          const inner = coercing(route);
          const outer: Validator = (data) => {
            const ok = inner(data) as boolean;
            if (!ok) {
              (outer as unknown as { errors: unknown }).errors = inner.errors;
              return false;
            }
            const bad = firstNonFinite(data);
            return bad === undefined ? true : nonFiniteError(outer, bad);
          };
          // fastify reads only the call and its `errors`, which the wrapper keeps.
          return outer as unknown as ReturnType<typeof coercing>;
        };
      },
    },
  };
}
