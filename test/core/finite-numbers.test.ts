import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';

// Guards: ?limit=1e309 was coerced to Infinity, passed `integer` + `maximum`, and ended as a 500
// (GET /watchlist/{name}) or an unbounded read (GET /events/recent). Numbers are held finite by
// the schema controller (src/core/request-validation.ts) on every route.
describe('non-finite numbers are refused on every route', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ video: { enabled: true } });
  });
  after(async () => t.close());

  for (const url of ['/api/v1/watchlist/default?limit=1e309', '/api/v1/events/recent?limit=1e309', '/api/v1/watchlist/default?offset=Infinity']) {
    it(`${url}: 400 VALIDATION_ERROR`, async () => {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 400, res.body);
      assertErrorShape(res.json(), 400, 'VALIDATION_ERROR');
    });
  }

  it('a normal limit passes', async () => {
    assert.equal((await t.app.inject({ url: '/api/v1/watchlist/default?limit=7' })).statusCode, 200);
  });

  it('a JSON body number of 1e309 (Infinity once parsed), however deep, is a 400', async () => {
    // Body validation runs before the handler, so no camera is needed to reach it.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/video/cameras/c1/lines',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "l", "points": [[0.5, 1e309], [0.5, 0.25]]}',
    });
    assert.equal(res.statusCode, 400, res.body);
    assertErrorShape(res.json(), 400);
  });
});
