import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { testApp, type TestApp } from '../helpers/app.js';
import { freePort, RtspTestServer } from '../helpers/rtsp-server.js';
import type { VigilEvent } from '../../src/core/event-types.js';
import { processesWith, VIDEO_TEST_CONFIG, waitFor } from '../helpers/video.js';
import { TESTDATA, testdata } from '../helpers/paths.js';
import { CameraStream } from '../../src/modules/video/camera-stream.js';
import { parseCameraSource } from '../../src/modules/video/camera-source.js';
import { ffmpegPath, probeFfmpeg } from '../../src/modules/video/ffmpeg-binary.js';
import { readProfile } from '../../src/runtime/hw-profile.js';

const SECRET = 'hunter2-not-for-logs';

describe('camera supervision: failing sources and a real RTSP server that dies', () => {
  let t: TestApp;
  let server: RtspTestServer;
  const logLines: string[] = [];
  const events: VigilEvent[] = [];
  const camera = async (id: string) => (await t.app.inject({ method: 'GET', url: `/api/v1/video/cameras/${id}` })).json();

  before(async () => {
    // Every log line the daemon writes, at debug level, to check that no credential leaks.
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logLines.push(chunk.toString());
        cb();
      },
    });
    t = await testApp({ video: VIDEO_TEST_CONFIG }, { logger: pino({ level: 'debug' }, sink) });
    t.app.vigil.bus.subscribe('test', (e) => {
      events.push(e);
    });
    server = new RtspTestServer(await freePort());
  });
  after(async () => {
    await server.kill();
    await t.close();
  });

  it('a nonexistent file: the daemon keeps serving and the camera says why', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id: 'missing', source: join(tmpdir(), 'vigil-nonexistent', 'clip.mp4') } });
    assert.equal(res.statusCode, 201, res.body);
    const cam = await waitFor('the restart limit', async () => ((await camera('missing')).status === 'failed' ? camera('missing') : undefined), 20_000);
    assert.equal(cam.is_running, false);
    assert.match(cam.last_error, /file not found: .*\/vigil-nonexistent\/clip\.mp4/);
    assert.match(cam.last_error, /gave up after 4 restarts/);
    const err = events.find((e) => e.type === 'system_error' && e.camera_id === 'missing');
    assert.ok(err, 'system_error emitted when the camera gives up');
    assert.equal((err.data as { module: string }).module, 'video');
    const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
    assert.match(health.details.video, /missing: failed \(gave up/);
    // Guards the bug where health stayed healthy: true while cameras were failing.
    assert.equal(health.modules.video, false, 'a failed camera makes the video module degraded');
    assert.equal(health.healthy, false);
  });

  it('an unreachable RTSP URL with credentials: reported, never leaked', async () => {
    const port = await freePort();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/video/cameras',
      payload: { camera_id: 'nowhere', source: `rtsp://admin:${SECRET}@127.0.0.1:${port}/live` },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().source, `rtsp://admin:***@127.0.0.1:${port}/live`);
    const cam = await waitFor(
      'a reported failure',
      async () => {
        const c = await camera('nowhere');
        return c.last_error ? c : undefined;
      },
      15_000,
    );
    assert.equal(cam.is_running, false);
    assert.match(cam.last_error, /refused/i);
    const served = await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras' });
    assert.equal(served.statusCode, 200);
    for (const text of [served.body, JSON.stringify(cam), (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).body, ...logLines]) {
      assert.ok(!text.includes(SECRET), `credential leaked: ${text.slice(0, 300)}`);
    }
    assert.ok(
      logLines.some((l) => l.includes('admin:***@127.0.0.1')),
      'the failure was logged, redacted',
    );
    await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/nowhere' });
    await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/missing' });
  });

  it('RTSP over TCP: the server is killed and restarted, the camera recovers by itself', async () => {
    await server.start();
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id: 'door', source: server.url } });
    assert.equal(res.statusCode, 201, res.body);
    const first = await waitFor(
      'RTSP frames',
      async () => {
        const c = await camera('door');
        return c.frame_count >= 10 ? c : undefined;
      },
      20_000,
    );
    assert.equal(first.is_running, true);
    assert.equal(first.status, 'running');

    await server.kill();
    const down = await waitFor(
      'the camera to notice',
      async () => {
        const c = await camera('door');
        return !c.is_running ? c : undefined;
      },
      15_000,
    );
    assert.ok(down.last_error, 'says why it is down');
    const frozen = down.frame_count;

    await new Promise((r) => setTimeout(r, 1500));
    await server.start();
    const back = await waitFor(
      'recovery',
      async () => {
        const c = await camera('door');
        return c.is_running && c.status === 'running' && c.frame_count > frozen + 10 ? c : undefined;
      },
      30_000,
    );
    assert.equal(back.last_error, null);
    assert.ok(back.fps > 0);
    const snap = await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/door/snapshot' });
    assert.equal(snap.headers['content-type'], 'image/jpeg');
  });

  it('removing a running camera stops its ffmpeg (stop ladder)', async () => {
    assert.equal(processesWith(server.url).length, 1, 'one ffmpeg reads the stream');
    const del = await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/door' });
    assert.deepEqual(del.json(), { removed: 'door' });
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras' })).json(), []);
    assert.deepEqual(processesWith(server.url), [], 'ffmpeg is gone once DELETE answers');
  });
});

describe('hardware decode fallback', () => {
  it('a CUDA preset on a box without CUDA falls back to the CPU and frames flow', async () => {
    const ff = await probeFfmpeg(ffmpegPath(readProfile('x86-cpu')));
    const frames: number[] = [];
    const stream = new CameraStream(
      parseCameraSource(testdata('video', 'TUD-Campus', 'TUD-Campus.mp4')),
      {
        binary: ff.path,
        caps: ff.caps,
        decode: { hwaccel: 'cuda' },
        box: { width: 416, height: 416 },
        maxFps: 10,
        realtime: true,
        loop: false,
        rtspTimeoutMs: 2000,
        decodeThreads: 1,
        watchdogMs: 4000,
        restart: { initialMs: 500, maxMs: 1000, maxRestarts: 3, windowMs: 60_000 },
        failedRetryMs: 0,
        stopStepMs: 1000,
        bufferSize: 3,
        fileRoots: [TESTDATA],
      },
      pino({ level: 'silent' }),
      { onFrame: (f) => frames.push(f.seq) },
    );
    assert.equal(stream.decoder(), 'cuda');
    stream.start();
    try {
      await waitFor('frames after the fallback', () => frames.length >= 5, 15_000);
      assert.equal(stream.decoder(), 'cpu');
      assert.match(stream.decodeFallback ?? '', /cuda decode failed: .*(device|Device)/);
      assert.equal(stream.restarts, 0, 'the fallback is not a failure of the source');
    } finally {
      await stream.stop();
    }
    assert.equal(stream.status, 'stopped');
  });
});
