import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { EVENT_TYPES } from '../../src/core/event-types.js';
import { OPENAPI_EXAMPLES } from '../../src/core/openapi-examples.generated.js';
import { packageRoot } from '../../src/core/package-root.js';
import { docTable, endpointTable } from '../../scripts/doc-tables.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking an arbitrary JSON document
type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** OpenAPI 3.0's boolean exclusiveMinimum back into the JSON Schema Ajv speaks. */
function forAjv(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forAjv);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'example' || k === 'enum' ? v : forAjv(v);
  for (const [ex, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ]) {
    if (out[ex!] === true) {
      out[ex!] = out[bound!];
      delete out[bound!];
    }
  }
  return out;
}

// Guards: /docs/json was not valid OpenAPI 3.0.3 (38 errors under /admin/config), had no
// examples and no 5xx responses, and typed no event payload.
describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  let deref: Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const compiled = new Map<unknown, ValidateFunction>();
  const validator = (schema: unknown) => compiled.get(schema) ?? compiled.set(schema, ajv.compile(forAjv(schema) as object)).get(schema)!;

  before(async () => {
    t = await testApp({ video: { enabled: true } });
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(res.statusCode, 200);
    doc = res.json();
    deref = (await SwaggerParser.dereference(structuredClone(doc) as never)) as Json;
  });
  after(async () => {
    await t.close();
  });

  const operations = (d: Json) =>
    Object.entries(d.paths as Json).flatMap(([path, item]) => METHODS.filter((m) => (item as Json)[m]).map((m) => ({ key: `${m.toUpperCase()} ${path}`, op: (item as Json)[m] as Json })));

  it('is valid OpenAPI 3.0.3 (swagger-parser)', async () => {
    assert.equal(doc.openapi, '3.0.3');
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  it('gives every operation an example, error responses in the error shape, and a unique id', () => {
    const ids = new Set<string>();
    const ops = operations(doc);
    assert.ok(ops.length >= 45, `${ops.length} operations`);
    for (const { key, op } of ops) {
      assert.ok(op.operationId && !ids.has(op.operationId), `${key}: operationId ${op.operationId}`);
      ids.add(op.operationId);
      const statuses = Object.keys(op.responses);
      assert.ok(
        statuses.some((s) => s.startsWith('4')),
        `${key}: no 4xx response`,
      );
      assert.ok(
        statuses.some((s) => s.startsWith('5')),
        `${key}: no 5xx response`,
      );
      for (const [status, resp] of Object.entries(op.responses as Json)) {
        const content = (resp as Json).content ?? {};
        if (/^[45]/.test(status)) {
          assert.equal(content['application/json']?.schema?.$ref, '#/components/schemas/ErrorBody', `${key} ${status}: not the error shape`);
          assert.ok(content['application/json'].example, `${key} ${status}: no example`);
        }
      }
      const success = Object.entries(op.responses as Json).filter(([s]) => s.startsWith('2'));
      assert.ok(success.length > 0, `${key}: no success response`);
      for (const [status, resp] of success) {
        const media = Object.values((resp as Json).content ?? {}) as Json[];
        const binary = media.some((c) => c.schema?.format === 'binary');
        assert.ok(binary || media.some((c) => c.example !== undefined), `${key} ${status}: no example`);
      }
      for (const [media, body] of Object.entries((op.requestBody as Json | undefined)?.content ?? {})) {
        assert.ok((body as Json).example !== undefined, `${key}: no ${media} request example`);
      }
    }
  });

  it('every example matches the schema it illustrates', () => {
    let checked = 0;
    for (const { key, op } of operations(deref)) {
      const media = [
        ...Object.entries(op.responses as Json).map(([s, r]) => [`response ${s}`, (r as Json).content?.['application/json']] as const),
        ...Object.entries((op.requestBody as Json | undefined)?.content ?? {}).map(([m, c]) => [`request ${m}`, c as Json] as const),
      ];
      for (const [what, m] of media) {
        if (!m?.schema || m.example === undefined) continue;
        const v = validator(m.schema);
        assert.ok(v(m.example), `${key} ${what}: ${ajv.errorsText(v.errors)}`);
        checked++;
      }
    }
    assert.ok(checked > 100, `${checked} examples checked`);
  });

  it("examples name an installed box's folders, not the checkout or temp dirs they were captured in", () => {
    // Guards: /docs showed a developer's worktree path (models_dir /work/wt-.../models).
    const text = JSON.stringify(OPENAPI_EXAMPLES);
    for (const place of [packageRoot(), testdata(), tmpdir()]) assert.ok(!text.includes(place), `an example holds ${place}`);
    assert.match(text, /"\/opt\/vigil\/models"/);
  });

  it('types the payload of all ten event types and the webhook body', () => {
    for (const type of EVENT_TYPES) assert.ok(doc.components.schemas[`Event_${type}`], `Event_${type} missing`);
    const cb = doc.paths['/api/v1/events/webhooks'].post.callbacks.event['{$request.body#/url}'].post;
    assert.ok(cb.requestBody.content['application/json'].schema.anyOf.some((s: Json) => s.$ref === '#/components/schemas/Event'));
  });

  it('events the daemon really emits match their payload schemas', async () => {
    const img = (...p: string[]) => ({ name: 'image', file: readFileSync(testdata(...p)), contentType: 'image/jpeg' });
    const post = async (url: string, parts: Parameters<typeof multipart>[0]) => {
      const mp = multipart(parts);
      const res = await t.app.inject({ method: 'POST', url, payload: mp.payload, headers: mp.headers });
      assert.ok(res.statusCode < 300, `${url}: ${res.body}`);
      return res.json();
    };
    await post('/api/v1/detect', [img('faces', 'identities', 'fr_barack_obama', 'obama.jpg')]);
    await post('/api/v1/watchlist/enroll', [img('faces', 'identities', 'fr_barack_obama', 'obama.jpg'), { name: 'label', value: 'Barack Obama' }]);
    await post('/api/v1/identify', [img('faces', 'identities', 'fr_barack_obama', 'obama1.jpg')]);
    await post('/api/v1/documents/scan', [img('documents', 'mrz', 'fastmrz_passport_uk.jpg')]);
    // A one-challenge session whose challenge times out: liveness_failed.
    const session = (await t.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions?num_challenges=1&timeout_seconds=0.5' })).json();
    await post(`/api/v1/liveness/sessions/${session.session_id}/frame`, [img('faces', 'identities', 'fr_barack_obama', 'obama.jpg')]);
    await sleep(700);
    await t.app.inject({ method: 'GET', url: `/api/v1/liveness/sessions/${session.session_id}` });

    const events = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent?limit=100' })).json() as Json[];
    const seen = new Set(events.map((e) => e.type));
    for (const type of ['face_detected', 'face_matched', 'watchlist_alert', 'document_scanned', 'liveness_failed']) assert.ok(seen.has(type), `no ${type} emitted`);
    for (const e of events) {
      const v = validator(deref.components.schemas[`Event_${e.type}`]);
      assert.ok(v(e), `${e.type}: ${ajv.errorsText(v.errors)} in ${JSON.stringify(e)}`);
    }
  });

  it('docs/api.md lists every operation', () => {
    assert.equal(docTable('api.md', 'endpoints'), endpointTable(doc as never), 'regenerate with: node --import tsx scripts/doc-tables.ts --write');
  });
});
