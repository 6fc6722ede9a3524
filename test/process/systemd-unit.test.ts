import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';

const unit = readFileSync(join(packageRoot(), 'systemd', 'vigil.service'), 'utf8');
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

describe('systemd unit', () => {
  it('is Type=notify with a watchdog, restarts on failure, runs as vigil, keeps only the data dir writable', () => {
    for (const line of [
      'Type=notify',
      'NotifyAccess=all',
      'Restart=on-failure',
      'User=vigil',
      'ProtectSystem=strict',
      'ReadWritePaths=/var/lib/vigil',
      'Environment=VIGIL_DATA_DIR=/var/lib/vigil',
      'SupplementaryGroups=video render',
    ]) {
      assert.match(unit, new RegExp(`^${line}$`, 'm'), line);
    }
    assert.match(unit, /^WatchdogSec=\d+$/m);
  });

  it('passes systemd-analyze verify once installed paths are filled in', { skip: !has('systemd-analyze') }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-unit-'));
    const file = join(dir, 'vigil.service');
    writeFileSync(file, unit.replaceAll('@NODE@', process.execPath).replaceAll('@PREFIX@', packageRoot()));
    const res = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr.trim(), '', res.stderr);
  });

  it('install.sh is valid bash', () => {
    const res = spawnSync('bash', ['-n', join(packageRoot(), 'scripts', 'install.sh')], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
  });
});
