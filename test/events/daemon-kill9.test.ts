import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { DaemonProcess } from '../helpers/daemon-process.js';
import { HttpsReceiver, waitUntil } from '../helpers/https-receiver.js';
import { Mosquitto, freePort } from '../helpers/mosquitto.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';

/**
 * The real daemon process, killed with SIGKILL: pending webhook deliveries come
 * out of the LMDB outbox after the restart, and the broker publishes the last will.
 */
describe('daemon killed with kill -9', () => {
  const broker = new Mosquitto();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-kill9-'));
  let pki: TestPki;
  let rx: HttpsReceiver;
  let daemon: DaemonProcess;
  let sub: MqttClient;
  const availability: string[] = [];
  let up = false;

  before(async () => {
    pki = makeTestPki();
    rx = new HttpsReceiver(pki);
    rx.respond = () => (up ? { status: 200 } : { status: 503, body: 'maintenance' });
    await rx.start();
    await broker.start();
    sub = await connectAsync(broker.url, { username: broker.username, password: broker.password });
    sub.on('message', (_t, payload) => availability.push(payload.toString()));
    await sub.subscribeAsync('vigil/availability', { qos: 1 });
    daemon = new DaemonProcess(await freePort(), dataDir, {
      VIGIL_EVENTS_CA_FILE: pki.caCertFile,
      VIGIL_EVENTS_RETRY_BASE_DELAY_MS: '100',
      VIGIL_EVENTS_RETRY_MAX_DELAY_MS: '400',
      VIGIL_MQTT_URL: broker.url,
      VIGIL_MQTT_USERNAME: broker.username,
      VIGIL_MQTT_PASSWORD_FILE: broker.passwordFile,
      VIGIL_MQTT_CLIENT_ID: 'vigil-test-daemon',
      VIGIL_MQTT_KEEPALIVE_SECONDS: '60',
    });
  });
  after(async () => {
    await daemon.kill9();
    await sub.endAsync(true);
    await broker.cleanup();
    await rx.stop();
    pki.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let webhookId = '';
  const eventIds: string[] = [];

  it('queues deliveries the receiver refuses, then the broker publishes the last will on kill -9', async () => {
    await daemon.start();
    await waitUntil(() => availability.at(-1) === 'online', 5000, 'online');
    const created = await daemon.request('POST', '/api/v1/events/webhooks', { url: rx.url, event_types: ['system_error'], secret: 'k9' });
    assert.equal(created.status, 200);
    webhookId = (created.json as { id: string }).id;
    for (let i = 0; i < 5; i++) {
      const res = await daemon.request('POST', `/api/v1/events/webhooks/${webhookId}/test`);
      assert.equal(res.status, 202);
      eventIds.push((res.json as { event: { id: string } }).event.id);
    }
    // The oldest delivery has been tried and refused (the others wait behind it, in order):
    // all five are pending in the outbox.
    await waitUntil(() => rx.received.filter((r) => r.headers['x-event-id'] === eventIds[0]).length >= 2, 10_000, 'first attempts');
    const log = await daemon.request('GET', `/api/v1/events/webhooks/${webhookId}/deliveries`);
    assert.equal((log.json as { pending: number }).pending, 5);

    await daemon.kill9();
    // Long keepalive: only the dropped TCP connection can tell the broker, and it does at once.
    await waitUntil(() => availability.at(-1) === 'offline', 5000, 'the last will');
  });

  it('after the restart every pending delivery arrives, signed, and the daemon is online again', async () => {
    up = true;
    await daemon.start();
    await waitUntil(() => eventIds.every((id) => rx.deliveredIds().has(id)), 15_000, 'the five deliveries after restart');
    for (const r of rx.received.filter((x) => x.status === 200)) {
      assert.equal(r.headers['x-signature-256'], `sha256=${createHmac('sha256', 'k9').update(r.raw).digest('hex')}`);
    }
    await waitUntil(() => availability.at(-1) === 'online', 5000, 'online again');
    const list = await daemon.request('GET', '/api/v1/events/webhooks');
    assert.deepEqual(
      (list.json as { id: string }[]).map((w) => w.id),
      [webhookId],
    );
    await waitUntil(async () => ((await daemon.request('GET', `/api/v1/events/webhooks/${webhookId}/deliveries`)).json as { pending: number }).pending === 0, 5000, 'outbox drained');
    const health = (await daemon.request('GET', '/api/v1/admin/health')).json as { modules: { events: boolean } };
    assert.equal(health.modules.events, true);
  });

  it('a clean stop publishes offline itself', async () => {
    await daemon.stop();
    await waitUntil(() => availability.at(-1) === 'offline', 5000, 'offline on stop');
  });
});
