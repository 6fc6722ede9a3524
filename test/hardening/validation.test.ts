import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

describe('validation: finite numbers, integers, no silent coercion, no silent truncation', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ video: { enabled: true } } as never);
  });
  after(async () => t?.close());

  for (const q of ['num_challenges=Infinity', 'num_challenges=1e309', 'num_challenges=-Infinity', 'timeout_seconds=Infinity', 'timeout_seconds=1e309']) {
    it(`POST /liveness/sessions?${q} is 400 VALIDATION_ERROR (guards: 500 or an accepted endless challenge)`, async () => {
      const res = await t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions?${q}` });
      assert.equal(res.statusCode, 400, res.body);
      assertErrorShape(res.json(), 400, 'VALIDATION_ERROR');
      assert.match(res.json().message, /finite/);
    });
  }

  it('num_challenges=2.5 is refused as not an integer; in-range values still work', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions?num_challenges=2.5' });
    assertErrorShape(bad.json(), 400, 'VALIDATION_ERROR');
    const ok = await t.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions?num_challenges=4&timeout_seconds=2.5' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().challenges.length, 4);
    assert.equal(ok.json().challenges[0].timeout_seconds, 2.5);
    const get = await t.app.inject({ method: 'GET', url: `/api/v1/liveness/sessions/${ok.json().session_id}` });
    assert.equal(get.statusCode, 200);
  });

  it('GET /events/recent?limit=1e309 is 400 (guards: Infinity passing maximum after coercion)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/events/recent?limit=1e309' });
    assertErrorShape(res.json(), 400, 'VALIDATION_ERROR');
  });

  it('JSON camera_id: 123 is refused with 400, not stored as "123" (guards: silent body coercion)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id: 123, source: '/nonexistent.mp4' } });
    assert.equal(res.statusCode, 400, res.body);
    assertErrorShape(res.json(), 400, 'VALIDATION_ERROR');
    assert.match(res.json().message, /camera_id must be string/);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras' });
    assert.deepEqual(list.json(), []);
  });

  it('a JSON number of 1e309 in a body is 400 (JSON.parse makes it Infinity)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/events/webhooks',
      headers: { 'content-type': 'application/json' },
      payload: '{"url":"https://example.invalid/h","event_types":["face_detected"],"secret":1e309}',
    });
    assert.equal(res.statusCode, 400);
    assertErrorShape(res.json(), 400, 'VALIDATION_ERROR');
  });

  it('a multipart text field over 64 KB is refused with 413 FIELD_TOO_LARGE, not cut and stored (guards: silent truncation)', async () => {
    const face = readFileSync(testdata('faces', 'identities', 'bbt_amy', 'amy1.png'));
    const label = 'L'.repeat(70 * 1024);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/watchlist/enroll',
      ...multipart([
        { name: 'image', file: face },
        { name: 'label', value: label },
      ]),
    });
    assert.equal(res.statusCode, 413, res.body);
    assertErrorShape(res.json(), 413, 'FIELD_TOO_LARGE');
    assert.equal(res.json().field, 'label');
    const lists = await t.app.inject({ method: 'GET', url: '/api/v1/watchlist' });
    assert.equal(JSON.stringify(lists.json()).includes('"size":1'), false, 'nothing may have been enrolled');
  });

  it('multipart numeric fields: Infinity and 1e309 thresholds are 400 INVALID_FIELD', async () => {
    const face = readFileSync(testdata('faces', 'identities', 'bbt_amy', 'amy1.png'));
    for (const v of ['Infinity', '1e309', 'NaN']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        ...multipart([
          { name: 'image1', file: face },
          { name: 'image2', file: face },
          { name: 'threshold', value: v },
        ]),
      });
      assert.equal(res.statusCode, 400, `${v}: ${res.body}`);
      assertErrorShape(res.json(), 400, 'INVALID_FIELD');
    }
  });
});

describe('validation: configuration numbers are finite too', () => {
  it('VIGIL_LIMITS_QUEUE_WAIT_MS=Infinity is a configuration error, not an endless wait (guards: non-finite settings)', async () => {
    const { ConfigError, loadConfig } = await import('../../src/config/load.js');
    assert.throws(() => loadConfig({ env: { VIGIL_LIMITS_QUEUE_WAIT_MS: 'Infinity' } }), ConfigError);
    assert.throws(() => loadConfig({ env: { VIGIL_SERVER_REQUEST_TIMEOUT_MS: '1e309' } }), ConfigError);
  });
});
