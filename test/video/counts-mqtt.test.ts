import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { testApp, type TestApp } from '../helpers/app.js';
import { Mosquitto } from '../helpers/mosquitto.js';
import { testdata } from '../helpers/paths.js';
import { VIDEO_TEST_CONFIG, waitFor, addPetsCameraWithRules } from '../helpers/video.js';
import { bucketStart } from '../../src/modules/video/count-history.js';

describe('counts as retained MQTT state (real mosquitto)', () => {
  const broker = new Mosquitto();
  let dir: string;
  let clip: string;
  let t: TestApp;

  /** What a subscriber arriving now gets for a topic filter: the retained messages only. */
  async function retained(filter: string, waitMs = 1500): Promise<Map<string, string>> {
    const c = await connectAsync(broker.url, { username: broker.username, password: broker.password });
    const got = new Map<string, string>();
    c.on('message', (topic, payload, packet) => {
      if (packet.retain) got.set(topic, payload.toString());
    });
    await c.subscribeAsync(filter, { qos: 1 });
    await new Promise((r) => setTimeout(r, waitMs));
    await c.endAsync(true);
    return got;
  }

  before(async () => {
    await broker.start();
    dir = mkdtempSync(join(tmpdir(), 'vigil-video-mqtt-'));
    clip = join(dir, 'pets-120.avi');
    execFileSync(ffmpeg.path, ['-v', 'error', '-y', '-i', testdata('video', 'PETS09-S2L1', 'vtest.avi'), '-frames:v', '120', '-c', 'copy', clip]);
    t = await testApp({
      video: { ...VIDEO_TEST_CONFIG, track_faces: false },
      mqtt: { url: broker.url, username: broker.username, password_file: broker.passwordFile, client_id: 'vigil-video-test' },
    });
    await waitFor('mqtt', () => t.app.events.mirror.connected, 10_000);
  });
  after(async () => {
    await t.close();
    await broker.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a late subscriber reads the current counts and camera status; deleted rules leave no state behind', async () => {
    await addPetsCameraWithRules(t.app, clip);
    await waitFor('the clip to end', async () => (await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/pets' })).json().status === 'ended', 40_000, 500);
    await new Promise((r) => setTimeout(r, 1000));
    const api = (await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/pets/counts' })).json();
    assert.ok(api.lines[0].in + api.lines[0].out > 0, 'people crossed');

    const state = await retained('vigil/cameras/pets/#');
    const line = JSON.parse(state.get('vigil/cameras/pets/counts/mid')!);
    assert.deepEqual([line.type, line.in, line.out, line.in_label], ['line', api.lines[0].in, api.lines[0].out, 'in']);
    const zone = JSON.parse(state.get('vigil/cameras/pets/counts/lower')!);
    assert.deepEqual([zone.entered, zone.exited, zone.occupancy], [api.zones[0].entered, api.zones[0].exited, api.zones[0].occupancy]);
    const status = JSON.parse(state.get('vigil/cameras/pets/status')!);
    assert.deepEqual([status.status, status.is_running], ['ended', false]);

    // The 15-minute bucket closes (here forced, as the timer does at the boundary): retained per rule.
    const now = Date.now();
    await t.app.video.closeBuckets(bucketStart(now), now);
    const buckets = await retained('vigil/cameras/pets/counts/+/bucket');
    const lineBucket = JSON.parse(buckets.get('vigil/cameras/pets/counts/mid/bucket')!);
    assert.deepEqual([lineBucket.bucket, lineBucket.in, lineBucket.out, lineBucket.start], ['15m', api.lines[0].in, api.lines[0].out, new Date(bucketStart(now)).toISOString()]);
    const zoneBucket = JSON.parse(buckets.get('vigil/cameras/pets/counts/lower/bucket')!);
    assert.deepEqual([zoneBucket.entered, zoneBucket.exited], [api.zones[0].entered, api.zones[0].exited]);
    assert.ok(zoneBucket.peak_occupancy >= 1);

    await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras/pets/counts/reset' });
    await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/pets/zones/lower' });
    const after = await retained('vigil/cameras/pets/#');
    assert.deepEqual(JSON.parse(after.get('vigil/cameras/pets/counts/mid')!).in, 0);
    assert.equal(after.has('vigil/cameras/pets/counts/lower'), false, 'deleted rule cleared');
    assert.equal(after.has('vigil/cameras/pets/counts/lower/bucket'), false, 'deleted rule: its bucket cleared');
    await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/pets' });
    assert.deepEqual([...(await retained('vigil/cameras/pets/#')).keys()], []);
  });
});
