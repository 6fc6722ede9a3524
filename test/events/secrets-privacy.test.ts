import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';
import { HttpsReceiver, waitUntil } from '../helpers/https-receiver.js';

const FAST = { retry_base_delay_ms: 50, retry_max_delay_ms: 200, retry_jitter: 0, delivery_timeout_ms: 2000 };
const MATCH = { identity_id: 'id-1', label: 'Ann Example', similarity: 0.82, watchlist: 'staff' };

describe('webhook secrets and identity labels', () => {
  let pki: TestPki;
  let rx: HttpsReceiver;
  let t: TestApp;
  let private_: TestApp;

  before(async () => {
    pki = makeTestPki();
    rx = new HttpsReceiver(pki);
    await rx.start();
    t = await testApp({ events: { ...FAST, ca_file: pki.caCertFile } });
    private_ = await testApp({ events: { ...FAST, ca_file: pki.caCertFile, include_labels: false } });
  });
  after(async () => {
    await t.close();
    await private_.close();
    await rx.stop();
    pki.cleanup();
  });

  /** Guards against issue 17.6: webhook URLs with user:password@ were echoed in clear by create and list. */
  it('a password in a webhook URL is stored and used (Basic auth) but never echoed by create, list or get', async () => {
    const url = rx.url.replace('https://', 'https://alice:s3cr%3At@') + '/creds';
    const created = await t.app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: { url, event_types: ['face_matched'] } });
    assert.equal(created.statusCode, 200, created.body);
    assert.doesNotMatch(created.body, /s3cr/);
    assert.match(created.json().url as string, /^https:\/\/alice:\*\*\*@127\.0\.0\.1:\d+\/hook\/creds$/);
    const id = created.json().id as string;
    for (const path of ['/api/v1/events/webhooks', `/api/v1/events/webhooks/${id}`]) {
      const res = await t.app.inject({ method: 'GET', url: path });
      if (res.statusCode === 404) continue; // a single-webhook GET is optional
      assert.doesNotMatch(res.body, /s3cr/, path);
      assert.match(res.body, /alice:\*\*\*@/, path);
    }
    const bad = await t.app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: { url: 'https://bob:hunter2@[bad', event_types: ['face_matched'] } });
    assert.equal(bad.statusCode, 400);
    assert.doesNotMatch(bad.body, /hunter2/);

    t.app.vigil.bus.emit('face_matched', 'identity', MATCH);
    await waitUntil(() => rx.received.some((r) => r.path === '/hook/creds'), 10_000);
    const got = rx.received.find((r) => r.path === '/hook/creds')!;
    assert.equal(got.headers.authorization, `Basic ${Buffer.from('alice:s3cr:t').toString('base64')}`);
    assert.match(got.raw.toString(), /"label":"Ann Example"/, 'labels are sent by default');
  });

  /** Guards against issue 17 (privacy): no way to keep enrolled names out of payloads that leave the box. */
  it('events.include_labels: false leaves every label out of webhook bodies; the history on the box keeps it', async () => {
    const created = await private_.app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: { url: `${rx.url}/nolabels`, event_types: ['face_matched'] } });
    assert.equal(created.statusCode, 200, created.body);
    private_.app.vigil.bus.emit('face_matched', 'identity', { ...MATCH, matches: [{ identity_id: 'id-2', label: 'Bo Other' }] } as typeof MATCH);
    await waitUntil(() => rx.received.some((r) => r.path === '/hook/nolabels'), 10_000);
    const body = rx.received.find((r) => r.path === '/hook/nolabels')!.raw.toString();
    assert.doesNotMatch(body, /label|Ann Example|Bo Other/);
    assert.match(body, /"identity_id":"id-1"/);
    const recent = await private_.app.inject({ method: 'GET', url: '/api/v1/events/recent' });
    assert.match(recent.body, /Ann Example/);
  });
});
