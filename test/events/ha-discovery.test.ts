import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { testApp, type TestApp } from '../helpers/app.js';
import { Mosquitto } from '../helpers/mosquitto.js';
import { waitUntil } from '../helpers/https-receiver.js';
import { VideoStore, videoStoreDir } from '../../src/modules/video/video-store.js';

interface Msg {
  topic: string;
  payload: string;
  retain: boolean;
}

const DEAD_RTSP = 'rtsp://127.0.0.1:9/nothing-here';
const LIGHT = { document: { enabled: false }, identity: { enabled: false }, liveness: { enabled: false } };

describe('Home Assistant / BMS over MQTT against a real mosquitto', () => {
  const broker = new Mosquitto();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-ha-'));
  let t: TestApp;
  let sub: MqttClient;
  const got: Msg[] = [];
  const on = (topic: string) => got.filter((m) => m.topic === topic);
  const last = (topic: string) => on(topic).at(-1);
  const config = (topic: string) => JSON.parse(last(topic)!.payload) as Record<string, unknown> & { device: { identifiers: string[] } };
  const HA = 'homeassistant/sensor/vigil-ha-test';
  const results = () => on('vigil/commands/result').map((m) => JSON.parse(m.payload));
  const doorStatus = () => JSON.parse(last('vigil/cameras/door/status')?.payload || '{}') as { status?: string; enabled?: boolean };

  before(async () => {
    // Counts left by a previous run, so a reset command has something to reset.
    const first = await testApp({ ...LIGHT, video: { enabled: true } }, {}, dataDir);
    await first.app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id: 'door', source: DEAD_RTSP } });
    await first.app.inject({
      method: 'POST',
      url: '/api/v1/video/cameras/door/lines',
      payload: {
        rule_id: 'entrance',
        name: 'Entrance',
        points: [
          [0.1, 0.5],
          [0.9, 0.5],
        ],
      },
    });
    await first.app.inject({
      method: 'POST',
      url: '/api/v1/video/cameras/door/zones',
      payload: {
        rule_id: 'lobby',
        points: [
          [0.1, 0.1],
          [0.9, 0.1],
          [0.9, 0.9],
          [0.1, 0.9],
        ],
      },
    });
    await first.close();
    const store = new VideoStore(videoStoreDir(dataDir));
    store.open();
    await store.putCounts('door', 'entrance', { in: 7, out: 3 });
    await store.close();

    await broker.start();
    sub = await connectAsync(broker.url, { username: broker.username, password: broker.password, reconnectPeriod: 200 });
    sub.on('message', (topic, payload, packet) => got.push({ topic, payload: payload.toString(), retain: packet.retain }));
    await sub.subscribeAsync(['vigil/#', 'homeassistant/#'], { qos: 1 });
    // What a daemon killed with -9 leaves on the broker: a camera "running", and a camera
    // deleted since (its status and counts) that nobody will ever update again.
    const stale = { retain: true, qos: 1 as const };
    await sub.publishAsync('vigil/cameras/door/status', JSON.stringify({ camera_id: 'door', status: 'running', is_running: true, last_error: null }), stale);
    await sub.publishAsync('vigil/cameras/ghost/status', JSON.stringify({ camera_id: 'ghost', status: 'running', is_running: true, last_error: null }), stale);
    await sub.publishAsync('vigil/cameras/ghost/counts/gone', JSON.stringify({ in: 4, out: 1 }), stale);
    t = await testApp(
      {
        ...LIGHT,
        video: { enabled: true },
        mqtt: {
          reconnect_min_ms: 100,
          reconnect_max_ms: 400,
          url: broker.url,
          username: broker.username,
          password_file: broker.passwordFile,
          client_id: 'vigil-ha-test',
          discovery: true,
          commands: true,
          stats_interval_seconds: 1,
        },
      },
      {},
      dataDir,
    );
    await waitUntil(() => t.app.events.mirror.connected, 10_000, 'connected');
  });
  after(async () => {
    await t.close();
    await sub.endAsync(true);
    await broker.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('discovers each line (in/out, total_increasing), zone (occupancy), camera (status, fps) and the box, under one device', async () => {
    const lineIn = `${HA}/rule_door_entrance_in/config`;
    await waitUntil(() => on(lineIn).length > 0 && on(`${HA}/camera_door_fps/config`).length > 0 && on(`${HA}/cpu/config`).length > 0, 10_000, 'discovery configs');
    const inCfg = config(lineIn);
    assert.equal(inCfg.state_class, 'total_increasing');
    assert.equal(inCfg.state_topic, 'vigil/cameras/door/counts/entrance');
    assert.equal(inCfg.value_template, '{{ value_json.in }}');
    assert.equal(inCfg.availability_topic, 'vigil/availability');
    assert.equal(config(`${HA}/rule_door_entrance_out/config`).state_class, 'total_increasing');
    const occ = config(`${HA}/rule_door_lobby_occupancy/config`);
    assert.equal(occ.state_class, 'measurement');
    assert.equal(occ.value_template, '{{ value_json.occupancy }}');
    assert.equal(config(`${HA}/camera_door_status/config`).state_topic, 'vigil/cameras/door/status');
    assert.equal(config(`${HA}/camera_door_fps/config`).state_topic, 'vigil/stats');
    const devices = got.filter((m) => m.topic.startsWith('homeassistant/') && m.payload).map((m) => JSON.parse(m.payload).device.identifiers[0]);
    assert.deepEqual([...new Set(devices)], ['vigil-ha-test'], 'one device per box');
    // The state the sensors read is there, retained.
    const counts = JSON.parse(last('vigil/cameras/door/counts/entrance')!.payload);
    assert.equal(counts.in, 7);
    const late = await connectAsync(broker.url, { username: broker.username, password: broker.password });
    const retained = new Promise<boolean>((resolve) => late.on('message', (_t, _p, packet) => resolve(packet.retain)));
    await late.subscribeAsync('vigil/cameras/door/counts/entrance', { qos: 1 });
    assert.equal(await retained, true, 'a late subscriber gets the counts at once');
    await late.endAsync(true);
  });

  it('corrects retained camera state left by a crash: restored cameras republish, unknown ones are cleared', async () => {
    await waitUntil(() => JSON.parse(last('vigil/cameras/door/status')!.payload || '{}').status !== 'running', 5000, 'door status corrected');
    await waitUntil(() => last('vigil/cameras/ghost/status')?.payload === '' && last('vigil/cameras/ghost/counts/gone')?.payload === '', 10_000, 'ghost cleared');
    assert.notEqual(last('vigil/cameras/door/status')!.payload, '', 'a camera this run has is not cleared');
    assert.equal(JSON.parse(last('vigil/cameras/door/counts/entrance')!.payload).in, 7, 'nor are its counts');
  });

  it('publishes box statistics on <prefix>/stats: cpu, memory, inference speeds, cameras', async () => {
    await waitUntil(() => on('vigil/stats').some((m) => JSON.parse(m.payload).cameras?.door), 5000, 'stats');
    const stats = JSON.parse(on('vigil/stats').at(-1)!.payload);
    assert.equal(typeof stats.cpu.percent, 'number');
    assert.ok(stats.memory.rss_mb > 0);
    assert.ok(Object.keys(stats.inference_ms).includes('person_det_yolox_nano'), JSON.stringify(stats.inference_ms));
    assert.ok(['starting', 'restarting', 'failed'].includes(stats.cameras.door.status));
    assert.equal(on('vigil/stats').at(-1)!.retain, false);
  });

  it("commands: reset a rule's counts, validated as the REST API, answered on commands/result", async () => {
    await sub.publishAsync('vigil/cameras/door/counts/entrance/reset', 'RESET', { qos: 1 });
    await waitUntil(() => results().length === 1, 5000, 'result');
    assert.equal(results()[0].ok, true);
    await waitUntil(() => JSON.parse(last('vigil/cameras/door/counts/entrance')!.payload).in === 0, 5000, 'counts reset on MQTT');
    const rest = (await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/door/counts' })).json();
    assert.equal(JSON.stringify(rest).includes('"in":7'), false, 'REST sees the reset too');
    await sub.publishAsync('vigil/cameras/door/counts/nope/reset', 'RESET', { qos: 1 });
    await sub.publishAsync('vigil/cameras/ghost/reset_counts', 'RESET', { qos: 1 });
    await waitUntil(() => results().length === 3, 5000, 'two refusals');
    assert.deepEqual(
      results()
        .slice(1)
        .map((r) => [r.ok, r.code]),
      [
        [false, 'RULE_NOT_FOUND'],
        [false, 'CAMERA_NOT_FOUND'],
      ],
    );
    // A retained command runs once, not again on every connect (the broker replays it on subscribe).
    await sub.publishAsync('vigil/cameras/door/reset_counts', 'RESET', { qos: 1, retain: true });
    await waitUntil(() => results().length === 4, 5000, 'the live command');
    await broker.stop();
    await waitUntil(() => !t.app.events.mirror.connected, 5000, 'disconnected');
    await broker.start();
    await waitUntil(() => t.app.events.mirror.connected && sub.connected, 15_000, 'reconnected');
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(results().length, 4, 'not run again from the retained copy');
    await sub.publishAsync('vigil/cameras/door/reset_counts', '', { qos: 1, retain: true });
  });

  // Guards: enable/disable a camera was missing from the MQTT commands (issue 19).
  it('commands: disable and enable a camera with ON/OFF, validated as the REST API, discovered as a switch', async () => {
    const sw = 'homeassistant/switch/vigil-ha-test/camera_door_enabled/config';
    await waitUntil(() => on(sw).length > 0, 5000, 'switch config');
    const cfg = config(sw);
    assert.equal(cfg.command_topic, 'vigil/cameras/door/enabled/set');
    assert.equal(cfg.state_topic, 'vigil/cameras/door/status');
    assert.deepEqual([cfg.payload_on, cfg.payload_off, cfg.state_on, cfg.state_off], ['ON', 'OFF', 'ON', 'OFF']);
    assert.equal(doorStatus().enabled, true);
    // Only this test's answers (the previous test's clean-up of its retained command also answers).
    const switched = () => results().filter((r) => /\/enabled\/set$/.test(r.topic));
    await sub.publishAsync('vigil/cameras/door/enabled/set', 'OFF', { qos: 1 });
    await waitUntil(() => switched().length === 1, 5000, 'disable result');
    assert.deepEqual(switched()[0], { topic: 'vigil/cameras/door/enabled/set', ok: true, command: 'disable', camera_id: 'door', enabled: false, status: 'stopped' });
    await waitUntil(() => doorStatus().enabled === false && doorStatus().status === 'stopped', 5000, 'retained status says disabled');
    const rest = (await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/door' })).json();
    assert.deepEqual([rest.enabled, rest.status, rest.is_running], [false, 'stopped', false], 'REST sees it disabled');
    // Refused as REST would refuse them: an unknown camera, an id REST would not take, and a payload that is neither ON nor OFF.
    await sub.publishAsync('vigil/cameras/ghost/enabled/set', 'ON', { qos: 1 });
    await sub.publishAsync('vigil/cameras/bad id!/enabled/set', 'ON', { qos: 1 });
    await sub.publishAsync('vigil/cameras/door/enabled/set', 'maybe', { qos: 1 });
    await waitUntil(() => switched().length === 4, 5000, 'three refusals');
    // Commands to different cameras are handled concurrently (one camera's are applied in order), so their
    // answers can come in any order: each is matched by its topic.
    assert.deepEqual(
      Object.fromEntries(
        switched()
          .slice(1)
          .map((r) => [r.topic, [r.ok, r.code]]),
      ),
      {
        'vigil/cameras/ghost/enabled/set': [false, 'CAMERA_NOT_FOUND'],
        'vigil/cameras/bad id!/enabled/set': [false, 'CAMERA_NOT_FOUND'],
        'vigil/cameras/door/enabled/set': [false, 'INVALID_COMMAND'],
      },
      JSON.stringify(switched()),
    );
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/door' })).json().enabled, false, 'a refused command changes nothing');
    await sub.publishAsync('vigil/cameras/door/enabled/set', 'on', { qos: 1 });
    await waitUntil(() => switched().length === 5, 5000, 'enable result');
    assert.equal(switched()[4].enabled, true);
    await waitUntil(() => doorStatus().enabled === true && doorStatus().status !== 'stopped', 5000, 'retained status says enabled and starting again');
  });

  it('removing a rule or camera removes its entities (empty retained config)', async () => {
    const del = await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/door/zones/lobby' });
    assert.equal(del.statusCode, 200, del.body);
    await waitUntil(() => last(`${HA}/rule_door_lobby_occupancy/config`)?.payload === '', 5000, 'zone entity removed');
    assert.equal(last(`${HA}/rule_door_entrance_in/config`)!.payload.length > 0, true, 'the line stays');
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/door' })).statusCode, 200);
    await waitUntil(() => last(`${HA}/camera_door_status/config`)?.payload === '' && last(`${HA}/rule_door_entrance_in/config`)?.payload === '', 5000, 'camera entities removed');
    await waitUntil(() => last('homeassistant/switch/vigil-ha-test/camera_door_enabled/config')?.payload === '', 5000, 'switch removed');
    assert.equal(last('vigil/cameras/door/status')!.payload, '');
  });
});
