import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { listedPackages, missingPackages } from '../../scripts/test-deps.mjs';

// Guards: `npm test` on a box without mosquitto/GStreamer died mid-suite on `spawnSync
// mosquitto_passwd ENOENT` instead of naming the command that installs them.
describe('test dependencies (scripts/test-deps.mjs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-test-deps-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A PATH holding everything in /usr/bin except `hidden`. */
  function pathWithout(...hidden: string[]): string {
    const bin = mkdtempSync(join(dir, 'bin-'));
    chmodSync(bin, 0o755);
    for (const name of readdirSync('/usr/bin')) if (!hidden.includes(name)) symlinkSync(join('/usr/bin', name), join(bin, name));
    return bin;
  }

  it('finds every listed package on this box (the suite is about to use them)', () => {
    assert.ok(listedPackages().includes('mosquitto'));
    assert.deepEqual(missingPackages(), []);
  });

  it('--check names what is missing and the command that installs it', () => {
    const res = spawnSync(process.execPath, ['scripts/test-deps.mjs', '--check'], {
      cwd: packageRoot(),
      encoding: 'utf8',
      env: { PATH: pathWithout('mosquitto_passwd', 'openssl') },
    });
    assert.equal(res.status, 1, res.stderr);
    assert.match(res.stderr, /mosquitto: mosquitto_passwd not found/);
    assert.match(res.stderr, /openssl: openssl not found/);
    assert.match(res.stderr, /npm run test:all/);
  });

  it("--check sees a python3 that cannot load GStreamer's RTSP server", () => {
    const py = mkdtempSync(join(dir, 'py-'));
    mkdirSync(join(py, 'gi'));
    writeFileSync(join(py, 'gi', '__init__.py'), 'raise ImportError("hidden")\n');
    const check = spawnSync(process.execPath, ['scripts/test-deps.mjs', '--check'], {
      cwd: packageRoot(),
      encoding: 'utf8',
      env: { PATH: process.env.PATH, PYTHONPATH: py },
    });
    assert.equal(check.status, 1);
    assert.match(check.stderr, /gir1\.2-gst-rtsp-server-1\.0: GstRtspServer 1\.0 unavailable/);
  });
});
