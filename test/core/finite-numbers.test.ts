import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { installErrorHandler } from '../../src/core/error-handler.js';
import { rejectNonFiniteNumbers } from '../../src/core/finite-numbers.js';
import { assertErrorShape } from '../helpers/app.js';

// Guards: ?limit=1e309 was coerced to Infinity, passed `integer` + `maximum`, and ended as a 500
// (GET /watchlist/{name}) or an unbounded read (GET /events/recent).
describe('non-finite numbers are refused on every route', () => {
  async function app() {
    const a = Fastify({ ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false } } });
    installErrorHandler(a);
    rejectNonFiniteNumbers(a);
    a.get('/q', { schema: { querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 500 } } } } }, async (req) => req.query);
    a.post('/b', async (req) => req.body);
    await a.ready();
    return a;
  }

  it('a query integer of 1e309 is a 400, a normal one passes', async () => {
    const a = await app();
    const bad = await a.inject({ url: '/q?limit=1e309' });
    assert.equal(bad.statusCode, 400, bad.body);
    assertErrorShape(bad.json(), 400, 'VALIDATION_ERROR');
    assert.match(bad.json().message, /limit/);
    assert.deepEqual((await a.inject({ url: '/q?limit=7' })).json(), { limit: 7 });
    await a.close();
  });

  it('a JSON body number of 1e309 (Infinity once parsed), however deep, is a 400', async () => {
    const a = await app();
    const res = await a.inject({ method: 'POST', url: '/b', headers: { 'content-type': 'application/json' }, payload: '{"points": [[0.5, 1e309]]}' });
    assert.equal(res.statusCode, 400, res.body);
    assertErrorShape(res.json(), 400, 'VALIDATION_ERROR');
    assert.match(res.json().message, /points\.0\.1/);
    const ok = await a.inject({ method: 'POST', url: '/b', headers: { 'content-type': 'application/json' }, payload: '{"points": [[0.5, 0.25]]}' });
    assert.equal(ok.statusCode, 200);
    await a.close();
  });
});
