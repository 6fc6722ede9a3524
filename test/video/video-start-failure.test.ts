import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp } from '../helpers/app.js';

// Guards: a video module whose start failed reported only "camera manager not started" in
// /admin/health and /admin/models; the reason was logged and lost.
describe('video module that cannot start', () => {
  it('says why in /admin/health and /admin/models', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-video-fail-'));
    // A file where the camera store's folder should be: LMDB cannot open it.
    writeFileSync(join(dataDir, 'video'), 'not a folder');
    const t = await testApp({ video: { enabled: true } }, {}, dataDir);
    try {
      const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.equal(health.modules.video, false);
      assert.match(health.details.video, /^camera manager failed to start: \S/);
      const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean; reason: string }[];
      const manager = models.find((c) => c.name === 'camera_manager')!;
      assert.equal(manager.loaded, false);
      assert.match(manager.reason, /^camera manager failed to start: \S/);
    } finally {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
