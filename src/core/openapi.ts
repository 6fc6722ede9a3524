import { STATUS_CODES } from 'node:http';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { EVENT_TYPE_INFO, TestDeliveryEventSchema, eventSchemaOf } from './event-schemas.js';
import type { EventType } from './event-types.js';
import { OPENAPI_EXAMPLES } from './openapi-examples.generated.js';

// The last step of /docs/json: @fastify/swagger writes the routes' TypeBox (JSON Schema 2020)
// schemas as they are, which OpenAPI 3.0.3 does not accept everywhere (tuples, numeric
// exclusiveMinimum, const, type null, patternProperties). This turns them into 3.0 schemas,
// gives every operation its error responses in the error shape with an example, attaches the
// examples captured from a real run (scripts/capture-api-examples.ts), and adds the ten event
// payload schemas and the webhook callback. test/admin/openapi.test.ts validates the result.

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const ERROR_REF = '#/components/schemas/ErrorBody';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** One JSON Schema (2020, as TypeBox writes it) as an OpenAPI 3.0 schema object. */
export function toOpenApi30(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApi30);
  if (!isObj(node)) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$id' || k === '$schema' || k === 'additionalItems') continue;
    // Property names and examples are data, not schemas.
    out[k] = k === 'properties' && isObj(v) ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, toOpenApi30(s)])) : k === 'example' || k === 'default' || k === 'enum' ? v : toOpenApi30(v);
  }
  if ('const' in out) {
    out.enum = [out.const];
    delete out.const;
  }
  for (const [ex, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[ex] === 'number') {
      out[bound] = out[ex];
      out[ex] = true;
    }
  }
  if (Array.isArray(out.items)) {
    const items = out.items as unknown[];
    const same = items.every((i) => JSON.stringify(i) === JSON.stringify(items[0]));
    out.items = same ? items[0] : { anyOf: items };
    out.minItems ??= items.length;
    out.maxItems ??= items.length;
  }
  if (isObj(out.patternProperties)) {
    const [first] = Object.values(out.patternProperties);
    out.additionalProperties = first ?? true;
    delete out.patternProperties;
  }
  if (out.type === 'null') Object.assign(out, { type: 'string', nullable: true, enum: [null] });
  if (Array.isArray(out.type)) {
    const types = (out.type as string[]).filter((t) => t !== 'null');
    if (types.length < (out.type as string[]).length) out.nullable = true;
    out.type = types.length === 1 ? types[0] : undefined;
    if (out.type === undefined) delete out.type;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = out[key];
    if (!Array.isArray(alts)) continue;
    const rest = alts.filter((a) => !(isObj(a) && a.type === 'null'));
    if (rest.length === alts.length) continue;
    delete out[key];
    out.nullable = true;
    if (rest.length === 1 && isObj(rest[0]) && !('$ref' in rest[0])) Object.assign(out, { ...rest[0], ...out, nullable: true });
    else out[key] = rest.length === 1 ? [rest[0]] : rest;
  }
  return out;
}

/** The codes an operation of this module may answer with one status. */
function codesFor(status: number, module: string): ErrorCode[] {
  const all = Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][];
  return all.filter(([, e]) => e.status === status && (e.module === 'all' || e.module === module || (e.module === 'face' && ['identity', 'document', 'liveness'].includes(module)))).map(([c]) => c);
}

function errorResponse(status: number, range: '4XX' | '5XX' | null, module: string): Json {
  const codes = range ? [] : codesFor(status, module);
  const code: ErrorCode = range === '4XX' ? 'VALIDATION_ERROR' : range === '5XX' ? 'INTERNAL_ERROR' : (codes.find((c) => ERROR_CODES[c].module === module) ?? codes[0] ?? 'VALIDATION_ERROR');
  const exampleStatus = ERROR_CODES[code].status;
  const reason = range ? `Any other ${range === '4XX' ? 'client' : 'server'} error` : (STATUS_CODES[status] ?? 'Error');
  return {
    description: `${reason}, in the error shape${codes.length ? `; code: ${codes.join(', ')}` : ''} (docs/api.md lists every code)`,
    content: {
      'application/json': {
        schema: { $ref: ERROR_REF },
        example: { statusCode: exampleStatus, code, error: STATUS_CODES[exampleStatus] ?? 'Error', message: ERROR_CODES[code].when.replace(/`/g, '') },
      },
    },
  };
}

function walkSchemas(op: Json, f: (s: unknown) => unknown): void {
  for (const p of (op.parameters as Json[] | undefined) ?? []) if (p.schema) p.schema = f(p.schema);
  const contents = [isObj(op.requestBody) ? op.requestBody.content : undefined, ...Object.values((op.responses as Json) ?? {}).map((r) => (isObj(r) ? r.content : undefined))];
  for (const c of contents) if (isObj(c)) for (const media of Object.values(c)) if (isObj(media) && media.schema) media.schema = f(media.schema);
}

/** Rewrites the document @fastify/swagger built into valid OpenAPI 3.0.3 with examples. */
export function finishOpenApi(doc: Json): Json {
  const components = ((doc.components as Json | undefined) ?? {}) as Json;
  const schemas = ((components.schemas as Json | undefined) ?? {}) as Json;
  // The error body is registered once (app.addSchema) and referenced as def-N; name it.
  const errorDef = Object.entries(schemas).find(([, s]) => isObj(s) && isObj(s.properties) && 'statusCode' in s.properties && 'code' in s.properties);
  const rename = (s: unknown): unknown => JSON.parse(JSON.stringify(s).replaceAll(`"#/components/schemas/${errorDef?.[0]}"`, `"${ERROR_REF}"`));
  if (errorDef) delete schemas[errorDef[0]];
  schemas.ErrorBody = toOpenApi30({
    type: 'object',
    required: ['statusCode', 'code', 'error', 'message'],
    properties: {
      statusCode: { type: 'integer' },
      code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Stable upper-case error code (docs/api.md)' },
      error: { type: 'string', description: 'HTTP reason phrase' },
      message: { type: 'string' },
    },
    additionalProperties: true,
  });
  for (const s of Object.keys(schemas)) if (s !== 'ErrorBody') schemas[s] = toOpenApi30(rename(schemas[s]));
  const eventRefs: Json[] = [];
  for (const type of Object.keys(EVENT_TYPE_INFO) as EventType[]) {
    const name = `Event_${type}`;
    schemas[name] = toOpenApi30({ ...eventSchemaOf(type), description: `${type}: ${EVENT_TYPE_INFO[type].when}` });
    eventRefs.push({ $ref: `#/components/schemas/${name}` });
  }
  schemas.Event = { oneOf: eventRefs, discriminator: { propertyName: 'type' }, description: "The spec's Event object; `data` depends on `type`" };
  components.schemas = schemas;
  doc.components = components;

  for (const [path, item] of Object.entries((doc.paths as Json) ?? {})) {
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      walkSchemas(op, (s) => toOpenApi30(rename(s)));
      const module = String((op.tags as string[] | undefined)?.[0] ?? 'all');
      const key = `${method.toUpperCase()} ${path}`;
      const ex = OPENAPI_EXAMPLES[key];
      const responses = ((op.responses as Json | undefined) ?? {}) as Json;
      if (ex?.binary && !Object.keys(responses).some((s) => s.startsWith('2'))) {
        responses['200'] = { description: 'OK', content: { [ex.binary]: { schema: { type: 'string', format: 'binary' } } } };
      }
      for (const [status, resp] of Object.entries(responses)) {
        if (!isObj(resp)) continue;
        const n = Number(status);
        if (n >= 400) responses[status] = errorResponse(n, null, module);
        else if (n >= 200 && n < 300) {
          if (resp.description === 'Default Response') resp.description = STATUS_CODES[n] ?? 'OK';
          // A route without a response schema (a text page, say) gets the media type it was seen to answer with.
          if (!isObj(resp.content) && ex && 'response' in ex) resp.content = { [ex.mediaType ?? 'application/json']: { schema: ex.mediaType ? { type: 'string' } : {} } };
          const content = isObj(resp.content) ? resp.content : {};
          const media = (content['application/json'] ?? content[ex?.mediaType ?? '']) as Json | undefined;
          if (media && ex && 'response' in ex) media.example = ex.response;
        }
      }
      responses['4XX'] ??= errorResponse(400, '4XX', module);
      responses['5XX'] ??= errorResponse(500, '5XX', module);
      op.responses = responses;
      const body = isObj(op.requestBody) && isObj(op.requestBody.content) ? op.requestBody.content : undefined;
      if (body && ex && 'request' in ex) for (const media of Object.values(body)) if (isObj(media)) media.example = ex.request;
      op.operationId ??= operationId(method, path);
    }
  }

  // Webhook receivers get the Event object (or a test delivery) as the POST body.
  const register = (doc.paths as Json)?.['/api/v1/events/webhooks'];
  if (isObj(register) && isObj(register.post)) {
    register.post.callbacks = {
      event: {
        '{$request.body#/url}': {
          post: {
            summary: 'An event delivered to the webhook (X-Event-Type, X-Event-ID, X-Signature-256 headers)',
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: { anyOf: [{ $ref: '#/components/schemas/Event' }, toOpenApi30(TestDeliveryEventSchema)] },
                },
              },
            },
            responses: { '200': { description: 'Any 2xx acknowledges the delivery; other answers are retried, 410 disables the webhook' } },
          },
        },
      },
    };
  }
  return doc;
}

/** A stable operation id from the method and path: GET /api/v1/video/cameras/{camera_id} -> getVideoCamerasByCameraId. */
export function operationId(method: string, path: string): string {
  const pascal = (w: string) =>
    w
      .split(/[_-]/)
      .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
      .join('');
  const words = path
    .replace(/^\/api\/v1\//, '')
    .split('/')
    .filter(Boolean)
    .map((w) => (w.startsWith('{') ? `By${pascal(w.slice(1, -1))}` : pascal(w)));
  return method + words.join('');
}
