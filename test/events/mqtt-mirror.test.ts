import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { testApp, type TestApp } from '../helpers/app.js';
import { Mosquitto } from '../helpers/mosquitto.js';
import { waitUntil } from '../helpers/https-receiver.js';
import { makeTestPki } from '../helpers/test-ca.js';

interface Msg {
  topic: string;
  payload: string;
  retain: boolean;
}

describe('MQTT mirror against a real mosquitto broker', () => {
  const pki = makeTestPki();
  const broker = new Mosquitto({ certFile: join(pki.dir, 'server.crt'), keyFile: join(pki.dir, 'server.key') });
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-mqtt-'));
  let t: TestApp;
  let sub: MqttClient;
  const got: Msg[] = [];
  const overrides = () => ({
    mqtt: {
      url: broker.url,
      username: broker.username,
      password_file: broker.passwordFile,
      client_id: 'vigil-test-mirror',
      reconnect_min_ms: 100,
      reconnect_max_ms: 400,
      discovery: true,
    },
  });
  const on = (topic: string) => got.filter((m) => m.topic === topic);

  before(async () => {
    await broker.start();
    // A persistent session (clean: false) with QoS 1: the broker keeps what arrives while we are away.
    sub = await connectAsync(broker.url, {
      clientId: 'test-subscriber',
      clean: false,
      username: broker.username,
      password: broker.password,
      reconnectPeriod: 100,
    });
    sub.on('message', (topic, payload, packet) => got.push({ topic, payload: payload.toString(), retain: packet.retain }));
    await sub.subscribeAsync(['vigil/#', 'homeassistant/#'], { qos: 1 });
    t = await testApp(overrides(), {}, dataDir);
  });
  after(async () => {
    await t.close();
    await sub.endAsync(true);
    await broker.cleanup();
    pki.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('announces itself: retained online on the availability topic, HA discovery for it', async () => {
    await waitUntil(() => on('vigil/availability').some((m) => m.payload === 'online'), 5000, 'online');
    await waitUntil(() => on('homeassistant/binary_sensor/vigil-test-mirror/availability/config').length > 0, 5000, 'discovery config');
    const cfg = JSON.parse(on('homeassistant/binary_sensor/vigil-test-mirror/availability/config')[0]!.payload);
    assert.equal(cfg.state_topic, 'vigil/availability');
    assert.equal(cfg.device_class, 'connectivity');
    const h = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
    assert.equal(h.modules.events, true);
    assert.match(h.details.events, /mqtt connected to mqtt:\/\/127\.0\.0\.1/);
    assert.equal(t.app.events.mirror.connected, true);
  });

  it('publishes every event on <prefix>/events/<type> and camera events under the camera too', async () => {
    const plain = t.app.vigil.bus.emit('face_detected', 'face', { count: 2 });
    const cam = t.app.vigil.bus.emit('line_crossed', 'video', { line: 'entrance', direction: 'in' }, 'door/1');
    await waitUntil(() => on('vigil/cameras/door_1/events/line_crossed').length === 1, 5000, 'camera topic');
    await waitUntil(() => on('vigil/events/line_crossed').length === 1, 5000, 'event topic');
    assert.deepEqual(JSON.parse(on('vigil/events/face_detected')[0]!.payload), plain);
    assert.deepEqual(JSON.parse(on('vigil/events/line_crossed')[0]!.payload), cam);
    assert.deepEqual(JSON.parse(on('vigil/cameras/door_1/events/line_crossed')[0]!.payload), cam);
    assert.equal(on('vigil/events/line_crossed')[0]!.retain, false);
    assert.equal(got.filter((m) => m.topic.startsWith('vigil/cameras/') && m.topic.endsWith('face_detected')).length, 0, 'no camera topic without camera_id');
  });

  it('publishState publishes retained state under the prefix', async () => {
    t.app.events.mirror.publishState('cameras/door_1/counts', { in: 3, out: 1 });
    await waitUntil(() => on('vigil/cameras/door_1/counts').length === 1, 5000, 'state');
    assert.deepEqual(JSON.parse(on('vigil/cameras/door_1/counts')[0]!.payload), { in: 3, out: 1 });
    // Retained: a new subscriber gets it at once.
    const late = await connectAsync(broker.url, { username: broker.username, password: broker.password });
    const seen = new Promise<{ payload: string; retain: boolean }>((resolve) => late.on('message', (_topic, payload, packet) => resolve({ payload: payload.toString(), retain: packet.retain })));
    await late.subscribeAsync('vigil/cameras/door_1/counts', { qos: 1 });
    const m = await seen;
    assert.equal(m.retain, true);
    await late.endAsync(true);
  });

  it('broker stopped then restarted: events produced meanwhile arrive', async () => {
    await broker.stop();
    await waitUntil(() => !t.app.events.mirror.connected, 5000, 'disconnect noticed');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(t.app.vigil.bus.emit('person_entered', 'video', { i }, 'lobby').id);
    const h = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
    // Regression (issue 19): a broker outage degrades the events module, it does not fail it (no 503).
    assert.equal(h.modules.events, true);
    assert.equal(h.status.events.state, 'degraded', 'health tells the broker is gone');
    assert.match(h.details.events, /mqtt disconnected.*40 messages queued/);
    await new Promise((r) => setTimeout(r, 1000)); // a few reconnect attempts with backoff
    await broker.start();
    await waitUntil(() => ids.every((id) => on('vigil/events/person_entered').some((m) => JSON.parse(m.payload).id === id)), 10_000, 'all 20 events after the restart');
    await waitUntil(() => on('vigil/cameras/lobby/events/person_entered').length >= 20, 5000, 'camera copies');
    const order = on('vigil/events/person_entered').map((m) => JSON.parse(m.payload).data.i as number);
    assert.deepEqual(order.slice(0, 20), [...Array(20).keys()], 'published in emission order');
    assert.ok(on('vigil/cameras/door_1/counts').length >= 1, 'retained state re-published on reconnect');
  });

  it('events queued while the broker is away survive a daemon restart', async () => {
    await broker.stop();
    await waitUntil(() => !t.app.events.mirror.connected, 5000, 'disconnect noticed');
    const ids = [0, 1, 2].map((i) => t.app.vigil.bus.emit('watchlist_alert', 'identity', { identity_id: `p${i}`, label: 'x', similarity: 0.9, watchlist: 'w' }).id);
    await t.close();
    await broker.start();
    t = await testApp(overrides(), {}, dataDir);
    await waitUntil(() => ids.every((id) => on('vigil/events/watchlist_alert').some((m) => JSON.parse(m.payload).id === id)), 10_000, 'the three after restart');
  });

  it('mqtts:// with a private CA: trusted through mqtt.ca_file, refused without it', async () => {
    const tls = (caFile: string, clientId: string) => ({
      mqtt: { url: broker.tlsUrl, username: broker.username, password_file: broker.passwordFile, client_id: clientId, ca_file: caFile },
    });
    const trusted = await testApp(tls(pki.caCertFile, 'vigil-test-tls'));
    const untrusted = await testApp(tls('', 'vigil-test-tls-untrusted'));
    try {
      await waitUntil(() => trusted.app.events.mirror.connected, 5000, 'TLS connect');
      const e = trusted.app.vigil.bus.emit('liveness_passed', 'liveness', { session_id: 's1' });
      await waitUntil(() => on('vigil/events/liveness_passed').some((m) => JSON.parse(m.payload).id === e.id), 5000, 'event over TLS');
      await waitUntil(
        async () => {
          const h = (await untrusted.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
          return /certificate|self.signed|issuer/i.test(h.details.events);
        },
        5000,
        'the certificate error in health',
      );
      assert.equal(untrusted.app.events.mirror.connected, false);
    } finally {
      await trusted.close();
      await untrusted.close();
    }
  });
});
