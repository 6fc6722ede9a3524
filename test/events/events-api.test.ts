import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { EVENT_TYPES } from '../../src/core/event-types.js';
import { loadConfig } from '../../src/config/load.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('events API (history, webhook registry)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-events-api-'));
  let t: TestApp;
  // Deliveries to these unreachable receivers stay pending; retries are far apart.
  const overrides = { events: { retry_base_delay_ms: 600_000 } };
  before(async () => {
    t = await testApp(overrides, {}, dataDir);
  });
  after(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('emits the spec Event object and a throwing subscriber cannot break emission', async () => {
    t.app.vigil.bus.subscribe('test-thrower', () => {
      throw new Error('subscriber bug');
    });
    t.app.vigil.bus.subscribe('test-rejecter', async () => {
      throw new Error('async subscriber bug');
    });
    const e = t.app.vigil.bus.emit('watchlist_alert', 'identity', { identity_id: 'id1', label: 'Ann', similarity: 0.71, watchlist: 'vip' }, 'cam-7');
    t.app.vigil.bus.unsubscribeOwner('test-thrower');
    t.app.vigil.bus.unsubscribeOwner('test-rejecter');
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/events/recent?limit=1' });
    assert.equal(res.statusCode, 200);
    const [got] = res.json();
    assert.deepEqual(Object.keys(got), ['id', 'type', 'timestamp', 'source', 'data', 'camera_id']);
    assert.deepEqual(got, e);
    assert.match(got.id, UUID);
    assert.match(got.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(got.camera_id, 'cam-7');
  });

  it('recent: newest first, limit defaults to 100, event_type filters, unknown type and bad limit are 400', async () => {
    const bus = t.app.vigil.bus;
    for (let i = 0; i < 130; i++) bus.emit(i % 2 ? 'line_crossed' : 'face_detected', 'test', { i });
    const all = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json();
    assert.equal(all.length, 100);
    assert.equal(all[0].data.i, 129, 'newest first');
    assert.equal(all[99].data.i, 30);
    const lines = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent?event_type=line_crossed&limit=3' })).json();
    assert.deepEqual(
      lines.map((e: { data: { i: number } }) => e.data.i),
      [129, 127, 125],
    );
    const none = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent?event_type=liveness_failed' })).json();
    assert.deepEqual(none, []);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/events/recent?event_type=face_found' });
    assert.equal(bad.statusCode, 400);
    assertErrorShape(bad.json(), 400, 'INVALID_EVENT_TYPE');
    for (const limit of ['0', '-1', 'abc', '1.5']) {
      const r = await t.app.inject({ method: 'GET', url: `/api/v1/events/recent?limit=${limit}` });
      assert.equal(r.statusCode, 400, `limit=${limit}`);
      assertErrorShape(r.json(), 400);
    }
  });

  it('history is bounded by history_size', async () => {
    const small = await testApp({ events: { history_size: 7 } });
    try {
      for (let i = 0; i < 20; i++) small.app.vigil.bus.emit('face_detected', 'test', { i });
      const got = (await small.app.inject({ method: 'GET', url: '/api/v1/events/recent?limit=1000' })).json();
      assert.equal(got.length, 7);
      assert.equal(got[6].data.i, 13);
    } finally {
      await small.close();
    }
  });

  it('webhook registration validates url, event_types and secret with 400s', async () => {
    const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: payload as object });
    const cases: [unknown, string][] = [
      [{ url: 'http://example.test/hook', event_types: ['face_detected'] }, 'INVALID_URL'],
      [{ url: 'not a url', event_types: ['face_detected'] }, 'INVALID_URL'],
      [{ url: 'ftp://example.test/x', event_types: ['face_detected'] }, 'INVALID_URL'],
      [{ url: 'https://example.test/hook', event_types: [] }, 'INVALID_EVENT_TYPE'],
      [{ url: 'https://example.test/hook', event_types: ['face_detected', 'face_found'] }, 'INVALID_EVENT_TYPE'],
      [{ event_types: ['face_detected'] }, 'VALIDATION_ERROR'],
      [{ url: 'https://example.test/hook' }, 'VALIDATION_ERROR'],
      [{ url: 'https://example.test/hook', event_types: 'face_detected' }, 'VALIDATION_ERROR'],
      [{ url: 'https://example.test/hook', event_types: ['face_detected'], secret: '' }, 'VALIDATION_ERROR'],
      [{ url: 'https://example.test/hook', event_types: ['face_detected'], extra: 1 }, 'VALIDATION_ERROR'],
    ];
    for (const [payload, code] of cases) {
      const res = await post(payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assertErrorShape(res.json(), 400, code);
    }
    const notJson = await t.app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: '{"url":', headers: { 'content-type': 'application/json' } });
    assert.equal(notJson.statusCode, 400);
    assertErrorShape(notJson.json(), 400);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/events/webhooks' })).json().length, 0, 'nothing was registered');
  });

  let kept: { id: string };
  it('registers, lists (secret never returned), deletes {removed}; unknown ids are 404', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/events/webhooks',
      payload: { url: 'https://127.0.0.1:9/a', event_types: ['face_matched', 'watchlist_alert', 'face_matched'], secret: 'top-secret' },
    });
    assert.equal(created.statusCode, 200);
    const w = created.json();
    assert.match(w.id, UUID);
    assert.equal(w.url, 'https://127.0.0.1:9/a');
    assert.deepEqual(w.event_types, ['face_matched', 'watchlist_alert']);
    assert.match(w.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.equal(w.enabled, true);
    assert.ok(!JSON.stringify(w).includes('top-secret'));
    const second = (await t.app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: { url: 'https://127.0.0.1:9/b', event_types: [...EVENT_TYPES] } })).json();
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/events/webhooks' });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list.json().map((x: { id: string }) => x.id),
      [w.id, second.id],
    );
    assert.ok(!list.body.includes('top-secret') && !list.body.includes('secret'));

    const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${second.id}` });
    assert.equal(del.statusCode, 200);
    assert.deepEqual(del.json(), { removed: second.id });
    for (const [method, url] of [
      ['DELETE', `/api/v1/events/webhooks/${second.id}`],
      ['DELETE', '/api/v1/events/webhooks/nope'],
      ['GET', '/api/v1/events/webhooks/nope/deliveries'],
      ['POST', '/api/v1/events/webhooks/nope/test'],
      ['POST', `/api/v1/events/webhooks/${w.id}/deliveries/123/redeliver`],
      ['POST', `/api/v1/events/webhooks/${w.id}/deliveries/abc/redeliver`],
    ] as const) {
      const res = await t.app.inject({ method, url });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assertErrorShape(res.json(), 404);
    }
    kept = w;
  });

  it('a pending delivery shows in the log and cannot be redelivered twice (409)', async () => {
    t.app.vigil.bus.emit('face_matched', 'identity', { identity_id: 'i', label: 'l', similarity: 0.9, watchlist: 'w' });
    const log = await t.app.inject({ method: 'GET', url: `/api/v1/events/webhooks/${kept.id}/deliveries?status=pending` });
    assert.equal(log.statusCode, 200);
    const body = log.json();
    assert.equal(body.pending, 1);
    assert.equal(body.deliveries.length, 1);
    const d = body.deliveries[0];
    assert.equal(d.status, 'pending');
    assert.equal(d.event_type, 'face_matched');
    const again = await t.app.inject({ method: 'POST', url: `/api/v1/events/webhooks/${kept.id}/deliveries/${d.delivery_id}/redeliver` });
    assert.equal(again.statusCode, 409);
    assertErrorShape(again.json(), 409, 'DELIVERY_PENDING');
    const badStatus = await t.app.inject({ method: 'GET', url: `/api/v1/events/webhooks/${kept.id}/deliveries?status=lost` });
    assert.equal(badStatus.statusCode, 400);
    const badTest = await t.app.inject({ method: 'POST', url: `/api/v1/events/webhooks/${kept.id}/test`, payload: { event_type: 'line_crossed' } });
    assert.equal(badTest.statusCode, 400);
    assertErrorShape(badTest.json(), 400, 'INVALID_EVENT_TYPE');
  });

  it('health reports the events module honestly: MQTT off without a url', async () => {
    const h = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
    assert.equal(h.modules.events, true);
    assert.match(h.details.events, /mqtt off \(mqtt\.url is empty\)/);
    assert.match(h.details.events, /1 webhooks/);
    assert.equal(t.app.events.mirror.enabled, false);
    t.app.events.mirror.publishState('cameras/x/counts', { in: 1 }); // a no-op, never a throw
  });

  it('webhooks and their pending deliveries survive a restart', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json();
    await t.app.close();
    t = await testApp(overrides, {}, dataDir);
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/events/webhooks' })).json();
    assert.deepEqual(
      list.map((x: { id: string }) => x.id),
      [kept.id],
    );
    assert.deepEqual(list[0].event_types, ['face_matched', 'watchlist_alert']);
    const log = (await t.app.inject({ method: 'GET', url: `/api/v1/events/webhooks/${kept.id}/deliveries` })).json();
    assert.equal(log.pending, 1);
    assert.equal(log.deliveries[0].status, 'pending');
    const recent = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json();
    // Issue 19: the history is persisted too (a superset of the spec's in-memory history).
    assert.ok(before.length > 0);
    assert.deepEqual(recent, before, 'the history survives the restart');
  });

  it('deleting a webhook removes its pending deliveries and its log from disk', async () => {
    const { store } = t.app.events.started();
    const keys = () => [...store.deliveries.getKeys({ start: [kept.id, 0], end: [kept.id, Number.MAX_SAFE_INTEGER] })].length;
    assert.ok(keys() > 0);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${kept.id}` });
    assert.deepEqual(del.json(), { removed: kept.id });
    assert.equal(keys(), 0);
    assert.equal(t.app.events.started().outbox.pending, 0);
  });

  it('a missing CA file or password file is reported in health; the daemon and the history keep running', async () => {
    const broken = await testApp({ events: { ca_file: '/nonexistent/ca.pem' }, mqtt: { url: 'mqtt://127.0.0.1:1', password_file: '/nonexistent/pw' } });
    try {
      broken.app.vigil.bus.emit('face_detected', 'face', {});
      const h = (await broken.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.equal(h.modules.events, false);
      assert.match(h.details.events, /webhook delivery not running: cannot read CA file \/nonexistent\/ca\.pem/);
      assert.match(h.details.events, /mqtt not started: cannot read mqtt\.password_file \/nonexistent\/pw/);
      assert.equal((await broken.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json().length, 1);
    } finally {
      await broken.close();
    }
    assert.throws(() => loadConfig({ env: {}, overrides: { mqtt: { url: 'broker.local:1883' } } }), /mqtt\.url/);
  });

  it('events.enabled false: endpoints answer 503 MODULE_DISABLED and health says disabled', async () => {
    const off = await testApp({ events: { enabled: false } });
    try {
      for (const url of ['/api/v1/events/recent', '/api/v1/events/webhooks']) {
        const res = await off.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 503);
        assertErrorShape(res.json(), 503, 'MODULE_DISABLED');
      }
      const h = (await off.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.equal(h.modules.events, false);
      assert.match(h.details.events, /disabled/);
    } finally {
      await off.close();
    }
  });

  it('webhooks_enabled false: webhook endpoints answer 503, history still works', async () => {
    const off = await testApp({ events: { webhooks_enabled: false } });
    try {
      const res = await off.app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: { url: 'https://x.test/', event_types: ['face_detected'] } });
      assert.equal(res.statusCode, 503);
      assertErrorShape(res.json(), 503, 'WEBHOOKS_DISABLED');
      off.app.vigil.bus.emit('face_detected', 'test', {});
      assert.equal((await off.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json().length, 1);
    } finally {
      await off.close();
    }
  });
});
