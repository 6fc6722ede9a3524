import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { testApp, type TestApp } from '../helpers/app.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';
import { HttpsReceiver, waitUntil, type Reply } from '../helpers/https-receiver.js';

/** Retries in tens of milliseconds instead of the default minutes; max 2 workers to see the limit. */
const FAST = {
  max_workers: 2,
  delivery_timeout_ms: 800,
  retry_base_delay_ms: 50,
  retry_factor: 2,
  retry_max_delay_ms: 400,
  retry_jitter: 0,
  max_attempts: 30,
};
const MATCH = { identity_id: 'id-1', label: 'Ann', similarity: 0.82, watchlist: 'staff' };

describe('webhook delivery to a real HTTPS receiver with a private CA', () => {
  let pki: TestPki;
  let rx: HttpsReceiver;
  let t: TestApp;

  before(async () => {
    pki = makeTestPki();
    rx = new HttpsReceiver(pki);
    await rx.start();
    t = await testApp({ events: { ...FAST, ca_file: pki.caCertFile } });
  });
  after(async () => {
    await t.close();
    await rx.stop();
    pki.cleanup();
  });

  /** A fresh webhook on its own path, so each test sees only its own requests. */
  async function register(path: string, eventTypes: string[], secret?: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/events/webhooks',
      payload: { url: `${rx.url}/${path}`, event_types: eventTypes, ...(secret ? { secret } : {}) },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().id as string;
  }
  const forPath = (path: string) => rx.received.filter((r) => r.path.endsWith(`/${path}`));
  const respondFor = (path: string, fn: (n: number) => Reply) => {
    rx.respond = ({ n }) => fn(n);
    return path;
  };
  async function log(id: string) {
    return (await t.app.inject({ method: 'GET', url: `/api/v1/events/webhooks/${id}/deliveries` })).json();
  }

  it('POSTs the Event JSON with the four headers; the signature verifies over the raw body', async () => {
    respondFor('sig', () => ({ status: 200 }));
    const id = await register('sig', ['face_matched'], 'hook-secret');
    const plain = await register('plain', ['face_matched']);
    t.app.vigil.bus.emit('face_detected', 'face', { count: 1 }); // not subscribed: never sent
    const event = t.app.vigil.bus.emit('face_matched', 'identity', MATCH, 'cam-2');
    await waitUntil(() => forPath('sig').length === 1 && forPath('plain').length === 1, 5000, 'both deliveries');
    const got = forPath('sig')[0]!;
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-event-type'], 'face_matched');
    assert.equal(got.headers['x-event-id'], event.id);
    assert.deepEqual(JSON.parse(got.raw.toString('utf8')), event);
    const expected = Buffer.from(`sha256=${createHmac('sha256', 'hook-secret').update(got.raw).digest('hex')}`);
    const sent = Buffer.from(String(got.headers['x-signature-256']));
    assert.ok(sent.length === expected.length && timingSafeEqual(sent, expected), 'signature recomputed by the receiver matches');
    assert.equal(forPath('plain')[0]!.headers['x-signature-256'], undefined, 'no secret, no signature');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(rx.received.filter((r) => r.headers['x-event-type'] === 'face_detected').length, 0);
    // The log is written when the attempt settles, a moment after the receiver answered.
    await waitUntil(async () => (await log(id)).deliveries[0]?.status === 'delivered', 5000, 'the delivery logged');
    const l = await log(id);
    assert.equal(l.deliveries[0].attempts, 1);
    assert.equal(l.deliveries[0].last_status_code, 200);
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${plain}` });
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${id}` });
  });

  it('500 then 200: exactly one success after one retry', async () => {
    let flakyCalls = 0;
    respondFor('flaky', () => (flakyCalls++ === 0 ? { status: 500, body: 'boom' } : { status: 200 }));
    const id = await register('flaky', ['line_crossed']);
    const event = t.app.vigil.bus.emit('line_crossed', 'video', { line: 'door' }, 'cam-1');
    // The log is written when an attempt settles, after the receiver has answered it.
    await waitUntil(async () => (await log(id)).deliveries[0]?.status === 'delivered', 5000, 'the retry delivered');
    await new Promise((r) => setTimeout(r, 300)); // no further attempt may follow a success
    const reqs = forPath('flaky');
    assert.deepEqual(
      reqs.map((r) => r.status),
      [500, 200],
    );
    assert.ok(
      reqs.every((r) => r.headers['x-event-id'] === event.id),
      'same X-Event-ID on the retry',
    );
    assert.ok(reqs[1]!.at - reqs[0]!.at >= 40, 'retry waited for the backoff');
    const d = (await log(id)).deliveries[0];
    assert.equal(d.status, 'delivered');
    assert.equal(d.attempts, 2);
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${id}` });
  });

  it('honours Retry-After on 503 and does not follow redirects', async () => {
    let calls = 0;
    rx.respond = ({ raw }): Reply => {
      const path = JSON.parse(raw.toString()).data.case as string;
      calls++;
      if (path === 'retry-after') return forPath('retry-after').length === 0 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 };
      return forPath('redirect').length === 0 ? { status: 302, headers: { location: `${rx.url}/elsewhere` } } : { status: 200 };
    };
    const ra = await register('retry-after', ['system_error']);
    t.app.vigil.bus.emit('system_error', 'video', { module: 'video', message: 'x', case: 'retry-after' });
    await waitUntil(() => forPath('retry-after').length >= 2, 5000, 'the delayed retry');
    const [a, b] = forPath('retry-after');
    assert.ok(b!.at - a!.at >= 950, `waited ${b!.at - a!.at} ms for Retry-After: 1 (schedule alone would be 50 ms)`);
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${ra}` });

    const rd = await register('redirect', ['system_error']);
    t.app.vigil.bus.emit('system_error', 'video', { module: 'video', message: 'x', case: 'redirect' });
    await waitUntil(() => forPath('redirect').length >= 2, 5000, 'retry after the redirect');
    assert.equal(forPath('elsewhere').length, 0, 'the Location was never requested');
    assert.deepEqual(
      forPath('redirect').map((r) => r.status),
      [302, 200],
    );
    assert.ok(calls >= 4);
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${rd}` });
  });

  it('keeps at most max_workers deliveries in flight and times out a hanging receiver', async () => {
    rx.maxInFlight = 0;
    respondFor('slow', () => ({ status: 200, delayMs: 150 }));
    const id = await register('slow', ['person_entered']);
    for (let i = 0; i < 8; i++) t.app.vigil.bus.emit('person_entered', 'video', { i }, 'cam-3');
    await waitUntil(() => forPath('slow').length >= 8, 8000, 'eight slow deliveries');
    assert.equal(rx.maxInFlight, 2, 'max_workers 2: never more, and the limit is used');
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${id}` });

    let hangCalls = 0;
    respondFor('hang', () => (hangCalls++ === 0 ? { status: 200, delayMs: 1500 } : { status: 200 }));
    const hang = await register('hang', ['person_exited']);
    t.app.vigil.bus.emit('person_exited', 'video', {}, 'cam-3');
    await waitUntil(async () => (await log(hang)).deliveries[0]?.status === 'delivered', 8000, 'delivery after the timeout');
    const d = (await log(hang)).deliveries[0];
    assert.equal(d.attempts, 2, 'the hanging attempt timed out and was retried');
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${hang}` });
  });

  it('receiver down for several seconds, then up: nothing is lost', async () => {
    respondFor('outage', () => ({ status: 200 }));
    const id = await register('outage', ['face_detected']);
    const port = rx.port;
    await rx.stop();
    const ids = new Set<string>();
    for (let i = 0; i < 25; i++) ids.add(t.app.vigil.bus.emit('face_detected', 'face', { i }).id);
    await new Promise((r) => setTimeout(r, 3000));
    const during = await log(id);
    assert.equal(during.pending, 25, 'all still pending while the receiver is down');
    const errors = during.deliveries.map((d: { last_error: string | null }) => d.last_error).filter(Boolean);
    assert.ok(errors.length > 0 && errors.every((e: string) => /ECONNREFUSED|socket|closed/i.test(e)), JSON.stringify(errors.slice(0, 3)));
    await rx.start(port);
    await waitUntil(() => [...ids].every((e) => rx.deliveredIds().has(e)), 8000, 'all 25 after the receiver came back');
    await waitUntil(async () => (await log(id)).pending === 0, 3000, 'outbox drained');
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${id}` });
  });

  it('410 Gone disables the webhook and holds its events; enable sends them in order; redeliver sends one again', async () => {
    let gone = true;
    respondFor('gone', () => ({ status: gone ? 410 : 200 }));
    const id = await register('gone', ['document_scanned']);
    const event = t.app.vigil.bus.emit('document_scanned', 'document', { mrz_type: 'TD3' });
    await waitUntil(async () => (await log(id)).enabled === false, 5000, 'the webhook disabled');
    const l = await log(id);
    assert.match(l.disabled_reason, /410/);
    assert.equal(l.deliveries[0].status, 'held');
    assert.equal(l.deliveries[0].last_status_code, 410);
    const listed = (await t.app.inject({ method: 'GET', url: '/api/v1/events/webhooks' })).json().find((w: { id: string }) => w.id === id);
    assert.equal(listed.enabled, false);
    // Regression (issue 19): events produced while disabled were never recorded, so never replayable.
    const missed = t.app.vigil.bus.emit('document_scanned', 'document', { mrz_type: 'TD1' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(forPath('gone').length, 1, 'a disabled webhook receives nothing');
    const held = await log(id);
    assert.equal(held.held, 2);
    assert.deepEqual(
      held.deliveries.map((d: { status: string }) => d.status),
      ['held', 'held'],
    );
    const refused = await t.app.inject({ method: 'POST', url: `/api/v1/events/webhooks/${id}/deliveries/${l.deliveries[0].delivery_id}/redeliver` });
    assert.equal(refused.statusCode, 409);

    gone = false;
    const en = await t.app.inject({ method: 'POST', url: `/api/v1/events/webhooks/${id}/enable` });
    assert.equal(en.json().enabled, true);
    await waitUntil(() => forPath('gone').length === 3, 5000, 'the held deliveries');
    assert.deepEqual(
      forPath('gone')
        .slice(1)
        .map((r) => r.headers['x-event-id']),
      [event.id, missed.id],
      'held deliveries go in order',
    );
    await waitUntil(async () => (await log(id)).held === 0 && (await log(id)).pending === 0, 3000, 'nothing left held');
    const first = (await log(id)).deliveries.find((d: { event_id: string }) => d.event_id === event.id);
    assert.equal(first.status, 'delivered');
    const re = await t.app.inject({ method: 'POST', url: `/api/v1/events/webhooks/${id}/deliveries/${first.delivery_id}/redeliver` });
    assert.equal(re.statusCode, 202);
    assert.notEqual(re.json().delivery_id, first.delivery_id);
    await waitUntil(() => forPath('gone').length === 4, 5000, 'the redelivery');
    assert.equal(forPath('gone')[3]!.headers['x-event-id'], event.id, 'a redelivery carries the same X-Event-ID');
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${id}` });
  });

  it('POST .../test sends a marked test delivery through the outbox', async () => {
    respondFor('test', () => ({ status: 204 }));
    const id = await register('test', ['watchlist_alert', 'face_matched'], 'k');
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/events/webhooks/${id}/test` });
    assert.equal(res.statusCode, 202);
    const { event } = res.json();
    await waitUntil(() => forPath('test').length === 1, 5000, 'the test delivery');
    const body = JSON.parse(forPath('test')[0]!.raw.toString());
    assert.deepEqual(body, event);
    assert.equal(body.type, 'watchlist_alert');
    assert.equal(body.data.test, true);
    const recent = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json();
    assert.ok(!recent.some((e: { id: string }) => e.id === event.id), 'test events stay out of the history');
    await t.app.inject({ method: 'DELETE', url: `/api/v1/events/webhooks/${id}` });
  });

  it('without the CA file the private-CA receiver is refused (TLS is verified)', async () => {
    const strict = await testApp({ events: { ...FAST, max_attempts: 1 } });
    try {
      const res = await strict.app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: { url: `${rx.url}/untrusted`, event_types: ['face_detected'] } });
      const id = res.json().id as string;
      strict.app.vigil.bus.emit('face_detected', 'face', {});
      let d: { status: string; last_error: string } | undefined;
      await waitUntil(
        async () => {
          d = (await strict.app.inject({ method: 'GET', url: `/api/v1/events/webhooks/${id}/deliveries` })).json().deliveries[0];
          return d?.status === 'failed';
        },
        5000,
        'the refused delivery',
      );
      assert.match(d!.last_error, /certificate|CERT|self.signed|issuer/i);
      assert.equal(forPath('untrusted').length, 0, 'no request reached the receiver');
    } finally {
      await strict.close();
    }
  });
});
