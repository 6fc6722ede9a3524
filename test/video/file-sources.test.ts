import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { testdata } from '../helpers/paths.js';
import { VIDEO_TEST_CONFIG, waitFor } from '../helpers/video.js';
import { probeFfmpeg } from '../../src/modules/video/ffmpeg-binary.js';
import { buildStreamArgs } from '../../src/modules/video/ffmpeg-args.js';
import { parseCameraSource } from '../../src/modules/video/camera-source.js';
import { resolveFileSource } from '../../src/modules/video/file-source-policy.js';
import { AppError } from '../../src/core/errors.js';

function firstJpeg(): string {
  const dir = testdata('faces', 'identities');
  for (const person of readdirSync(dir)) {
    const jpg = readdirSync(join(dir, person)).find((f) => f.endsWith('.jpg'));
    if (jpg) return join(dir, person, jpg);
  }
  throw new Error('no JPEG in the shared identities');
}

/** Guards against issue 17.1: any file on the box (a text file, a JPEG) was readable back through a camera snapshot. */
describe('file camera sources are held to video.file_roots and video containers', () => {
  let dir: string;
  let media: string;
  let outside: string;
  let t: TestApp;
  const add = (camera_id: string, source: string) => t.app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id, source, loop: true } });
  const snapshot = (id: string) => t.app.inject({ method: 'GET', url: `/api/v1/video/cameras/${id}/snapshot` });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-roots-'));
    media = join(dir, 'media');
    outside = join(dir, 'elsewhere');
    mkdirSync(media);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'SECRET SECRET SECRET\n'.repeat(40));
    copyFileSync(firstJpeg(), join(outside, 'face.jpg'));
    // Inside the root: a text file and a JPEG dressed up as videos, links out of the root, and one real clip.
    writeFileSync(join(media, 'notes.mp4'), 'SECRET SECRET SECRET\n'.repeat(40));
    copyFileSync(firstJpeg(), join(media, 'still.mp4'));
    symlinkSync(join(outside, 'secret.txt'), join(media, 'link.txt'));
    symlinkSync(outside, join(media, 'linkdir'));
    execFileSync(ffmpeg.path, ['-v', 'error', '-y', '-i', testdata('video', 'PETS09-S2L1', 'vtest.avi'), '-frames:v', '60', '-c', 'copy', join(media, 'clip.avi')]);
    t = await testApp({ video: { ...VIDEO_TEST_CONFIG, track_faces: false, file_roots: [media] } });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a text file and a JPEG outside the roots are refused with 403 SOURCE_OUTSIDE_ROOTS and never read back', async () => {
    for (const [id, source] of [
      ['txt', join(outside, 'secret.txt')],
      ['jpg', join(outside, 'face.jpg')],
      ['dots', join(media, '..', 'elsewhere', 'secret.txt')],
      ['etc', '/etc/passwd'],
    ] as const) {
      const res = await add(id, source);
      assert.equal(res.statusCode, 403, `${source}: ${res.body}`);
      assertErrorShape(res.json(), 403, 'SOURCE_OUTSIDE_ROOTS');
      assertErrorShape((await snapshot(id)).json(), 404, 'CAMERA_NOT_FOUND');
    }
  });

  it('symlinks inside a root that point out of it are refused', async () => {
    for (const [id, source] of [
      ['link', join(media, 'link.txt')],
      ['linkdir', join(media, 'linkdir', 'face.jpg')],
    ] as const) {
      const res = await add(id, source);
      assertErrorShape(res.json(), 403, 'SOURCE_OUTSIDE_ROOTS');
    }
  });

  it('inside the root, a .txt renamed .mp4 and a JPEG renamed .mp4 are refused by their content (415 SOURCE_NOT_VIDEO)', async () => {
    for (const [id, name] of [
      ['notes', 'notes.mp4'],
      ['still', 'still.mp4'],
    ] as const) {
      const res = await add(id, join(media, name));
      assert.equal(res.statusCode, 415, res.body);
      assertErrorShape(res.json(), 415, 'SOURCE_NOT_VIDEO');
      assert.doesNotMatch(res.body, /SECRET/);
    }
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/video/cameras' })).json() as unknown[];
    assert.equal(list.length, 0, 'no refused camera was stored');
  });

  it('a real clip inside the root plays and snapshots', async () => {
    const res = await add('clip', join(media, 'clip.avi'));
    assert.equal(res.statusCode, 201, res.body);
    await waitFor('a frame', async () => (await snapshot('clip')).statusCode === 200, 20_000);
    await t.app.inject({ method: 'DELETE', url: '/api/v1/video/cameras/clip' });
  });

  it('devices are only /dev/video*', () => {
    assert.equal(parseCameraSource('/dev/video0').kind, 'device');
    const sda = parseCameraSource('/dev/sda');
    assert.equal(sda.kind, 'file');
    assert.throws(
      () => resolveFileSource('/dev/sda', [media]),
      (e: unknown) => e instanceof AppError && e.code === 'SOURCE_OUTSIDE_ROOTS',
    );
  });

  it('ffmpeg itself is held to the whitelist: a text file that replaced a stored clip does not decode', async () => {
    const args = buildStreamArgs({
      source: { ...parseCameraSource(join(media, 'notes.mp4')) },
      decode: { hwaccel: 'none' },
      caps: (await probeFfmpeg(ffmpeg.path)).caps,
      maxFps: 10,
      box: { width: 64, height: 64 },
      realtime: false,
      loop: false,
      rtspTimeoutMs: 1000,
      decodeThreads: 1,
    });
    assert.ok(args.indexOf('-format_whitelist') < args.indexOf('-i'));
    const txt = join(media, 'plain.txt');
    writeFileSync(txt, 'SECRET\n');
    const argv = args.map((a) => (a === `file:${join(media, 'notes.mp4')}` ? `file:${txt}` : a));
    const out = (() => {
      try {
        execFileSync(ffmpeg.path, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
        return 'decoded';
      } catch (err) {
        return String((err as { stderr: Buffer }).stderr);
      }
    })();
    assert.match(out, /Format not on whitelist/);
  });
});
