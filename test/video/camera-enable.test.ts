import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { processesWith, VIDEO_TEST_CONFIG, waitFor } from '../helpers/video.js';

/** A source nobody answers on: the camera exists and restarts, nothing is decoded. */
const SOURCE = 'rtsp://127.0.0.1:9/vigil-enable-test';
const LIGHT = { document: { enabled: false }, identity: { enabled: false }, liveness: { enabled: false }, video: VIDEO_TEST_CONFIG };

// Guards: a camera could only be removed, not stopped and started again (issue 19, enable/disable).
describe('POST /video/cameras/{id}/disable and /enable', () => {
  let t: TestApp | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-enable-'));
  after(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops the stream without removing the camera, keeps it stopped across a restart, and starts it again', async () => {
    t = await testApp(LIGHT, {}, dataDir);
    const add = await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id: 'door', source: SOURCE } });
    assert.equal(add.statusCode, 201, add.body);
    assert.equal(add.json().enabled, true);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/video/cameras/door/lines',
      payload: {
        rule_id: 'entrance',
        points: [
          [0, 0.5],
          [1, 0.5],
        ],
      },
    });

    const off = await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras/door/disable' });
    assert.equal(off.statusCode, 200, off.body);
    assert.deepEqual([off.json().enabled, off.json().status, off.json().is_running, off.json().last_error], [false, 'stopped', false, 'disabled']);
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras/door/disable' });
    assert.equal(again.statusCode, 200, 'disabling a disabled camera changes nothing');
    assert.equal(again.json().status, 'stopped');
    await waitFor('no ffmpeg for the disabled camera', () => processesWith('vigil-enable-test').length === 0, 5000);
    assertErrorShape((await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras/ghost/disable' })).json(), 404, 'CAMERA_NOT_FOUND');
    assertErrorShape((await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras/ghost/enable' })).json(), 404, 'CAMERA_NOT_FOUND');

    await t.close();
    t = await testApp(LIGHT, {}, dataDir);
    const restored = (await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/door' })).json();
    assert.deepEqual([restored.enabled, restored.status], [false, 'stopped'], 'still disabled after a restart');
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/door/lines' })).json().length, 1, 'its rules stay');
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(processesWith('vigil-enable-test'), [], 'a disabled camera starts no ffmpeg at start-up');

    const on = await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras/door/enable' });
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(on.json().enabled, true);
    assert.notEqual(on.json().status, 'stopped');
    await t.close();
    t = await testApp(LIGHT, {}, dataDir);
    const later = (await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras/door' })).json();
    assert.equal(later.enabled, true, 'enabled after a restart');
    assert.notEqual(later.status, 'stopped');
  });
});
