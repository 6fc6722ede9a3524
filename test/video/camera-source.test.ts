import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCameraSource } from '../../src/modules/video/camera-source.js';
import { AppError } from '../../src/core/errors.js';
import { redactText, redactUrl, urlSecrets } from '../../src/core/redact.js';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.statusCode, 400);
    return err.code;
  }
  throw new Error('did not throw');
}

describe('camera sources', () => {
  it('classifies rtsp, rtsps, absolute files and device indexes', () => {
    const r = parseCameraSource('rtsp://cam.local:554/stream1');
    assert.equal(r.kind, 'rtsp');
    assert.equal(r.input, 'rtsp://cam.local:554/stream1');
    assert.equal(parseCameraSource('RTSPS://cam/x').kind, 'rtsp');
    const f = parseCameraSource('/videos/a clip.mp4');
    assert.equal(f.kind, 'file');
    // guards against ffmpeg reading a path segment as a protocol (concat:, subfile:, ...)
    assert.equal(f.input, 'file:/videos/a clip.mp4');
    const d = parseCameraSource('0');
    assert.deepEqual([d.kind, d.input, d.display], ['device', '/dev/video0', '0']);
    assert.equal(parseCameraSource('/dev/video2').kind, 'device');
  });

  it('rejects everything else with a clear code', () => {
    assert.equal(
      code(() => parseCameraSource('')),
      'INVALID_SOURCE',
    );
    assert.equal(
      code(() => parseCameraSource('   ')),
      'INVALID_SOURCE',
    );
    assert.equal(
      code(() => parseCameraSource('http://cam/x.mjpg')),
      'UNSUPPORTED_SOURCE',
    );
    assert.equal(
      code(() => parseCameraSource('concat:/a|/b')),
      'UNSUPPORTED_SOURCE',
    );
    assert.equal(
      code(() => parseCameraSource('file:/etc/passwd')),
      'UNSUPPORTED_SOURCE',
    );
    assert.equal(
      code(() => parseCameraSource('videos/clip.mp4')),
      'INVALID_SOURCE',
    );
    // a leading '-' would become an ffmpeg option
    assert.equal(
      code(() => parseCameraSource('-filter_complex')),
      'INVALID_SOURCE',
    );
    assert.equal(
      code(() => parseCameraSource('64')),
      'INVALID_SOURCE',
    );
    assert.equal(
      code(() => parseCameraSource('rtsp://')),
      'INVALID_SOURCE',
    );
    assert.equal(
      code(() => parseCameraSource('/tmp/a\nb')),
      'INVALID_SOURCE',
    );
  });

  it('never shows an RTSP password', () => {
    const s = parseCameraSource('rtsp://admin:p%40ss@10.0.0.5/live');
    assert.equal(s.display, 'rtsp://admin:***@10.0.0.5/live');
    assert.deepEqual(new Set(s.secrets), new Set(['p%40ss', 'p@ss']));
    assert.equal(s.input, 'rtsp://admin:p%40ss@10.0.0.5/live');
    // the error for a bad URL is redacted too
    try {
      parseCameraSource('rtsp://admin:hunter2@[bad/live');
      assert.fail('accepted');
    } catch (err) {
      assert.doesNotMatch((err as Error).message, /hunter2/);
    }
  });

  it('redacts user-info and literal secrets in free text', () => {
    assert.equal(redactUrl('open rtsp://u:pw@h/x failed'), 'open rtsp://u:***@h/x failed');
    assert.equal(redactUrl('rtsp://justuser@h/x'), 'rtsp://justuser@h/x');
    assert.deepEqual(urlSecrets('rtsp://u@h/x'), []);
    assert.equal(redactText('[rtsp @ 0x1] method DESCRIBE failed for pw', ['pw']), '[rtsp @ 0x1] method DESCRIBE failed for ***');
  });
});
