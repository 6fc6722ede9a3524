import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { spawnDaemon, type Daemon } from '../helpers/daemon.js';
import { testdata } from '../helpers/paths.js';
import { processesWith, waitFor } from '../helpers/video.js';

/** Guards against losing acknowledged cameras, rules or counts when the daemon is killed without warning. */
describe('video state survives kill -9', () => {
  let dir: string;
  let clip: string;
  let daemon: Daemon | null = null;
  const env = () => ({
    VIGIL_DATA_DIR: join(dir, 'data'),
    VIGIL_VIDEO_ENABLED: 'true',
    VIGIL_VIDEO_MAX_FPS: '10',
    VIGIL_VIDEO_TRACK_FACES: 'false',
    VIGIL_VIDEO_FILE_ROOTS: dir,
    VIGIL_LOG_LEVEL: 'warn',
  });
  const api = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${daemon!.url}/api/v1/video${path}`, { ...init, headers: { 'content-type': 'application/json' } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { lines: { in: number; out: number }[] } };
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-kill9-'));
    clip = join(dir, 'pets-300.avi');
    execFileSync(ffmpeg.path, ['-v', 'error', '-y', '-i', testdata('video', 'PETS09-S2L1', 'vtest.avi'), '-frames:v', '300', '-c', 'copy', clip]);
  });
  after(async () => {
    if (daemon && daemon.proc.exitCode === null) {
      daemon.proc.kill('SIGKILL');
      await daemon.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('cameras, lines and the counts already reported come back; orphaned ffmpeg exits', async () => {
    daemon = await spawnDaemon(env());
    const cam = await api('/cameras', { method: 'POST', body: JSON.stringify({ camera_id: 'pets', source: clip, loop: true }) });
    assert.equal(cam.status, 201, JSON.stringify(cam.body));
    const line = await api('/cameras/pets/lines', {
      method: 'POST',
      body: JSON.stringify({
        rule_id: 'mid',
        points: [
          [0, 0.5],
          [1, 0.5],
        ],
      }),
    });
    assert.equal(line.status, 201);
    const seen = await waitFor(
      'a counted crossing',
      async () => {
        const c = await api('/cameras/pets/counts');
        return c.body.lines[0]!.in + c.body.lines[0]!.out >= 2 ? c.body.lines[0]! : undefined;
      },
      60_000,
      500,
    );
    daemon.proc.kill('SIGKILL');
    await daemon.exited;
    // ffmpeg's stdout pipe is gone with the daemon: it must not run on forever
    await waitFor('the orphaned ffmpeg to exit', () => processesWith(clip).length === 0, 15_000);

    daemon = await spawnDaemon(env());
    const list = await fetch(`${daemon.url}/api/v1/video/cameras`).then((r) => r.json() as Promise<{ camera_id: string; loop: boolean }[]>);
    assert.deepEqual(
      list.map((c) => [c.camera_id, c.loop]),
      [['pets', true]],
    );
    const counts = await api('/cameras/pets/counts');
    const mid = counts.body.lines[0]!;
    assert.ok(mid.in >= seen.in && mid.out >= seen.out, `before kill ${JSON.stringify(seen)}, after ${JSON.stringify(mid)}`);
    // The count history too: the buckets hold at least what was reported before the kill.
    const hist = (await fetch(`${daemon.url}/api/v1/video/cameras/pets/counts/history?bucket=1d`).then((r) => r.json())) as { rows: { in: number; out: number }[] };
    const inOut = hist.rows.reduce((a, r) => [a[0]! + r.in, a[1]! + r.out], [0, 0]);
    assert.ok(inOut[0]! >= seen.in && inOut[1]! >= seen.out, `history after kill ${JSON.stringify(inOut)}, counts before ${JSON.stringify(seen)}`);
    daemon.proc.kill('SIGTERM');
    assert.deepEqual(await daemon.exited, { code: 0, signal: null });
    assert.deepEqual(processesWith(clip), [], 'a clean shutdown stops ffmpeg');
  });
});
