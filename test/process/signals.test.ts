import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnDaemon } from '../helpers/daemon.js';
import { packageRoot } from '../../src/core/package-root.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-signals-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const light = (dir: string) => ({
  VIGIL_DATA_DIR: join(tmp, dir),
  VIGIL_LOG_LEVEL: 'info',
  VIGIL_LIVENESS_ENABLED: 'false',
  VIGIL_DOCUMENT_ENABLED: 'false',
  VIGIL_SERVER_SHUTDOWN_TIMEOUT_MS: '4000',
});

describe('process signals', () => {
  /** Guards against issue 17.7: SIGHUP killed the daemon at once. */
  it('SIGHUP is logged and ignored; the daemon keeps serving and still stops cleanly', async () => {
    const d = await spawnDaemon(light('hup'));
    d.proc.kill('SIGHUP');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(d.proc.exitCode, null, d.output());
    assert.equal((await fetch(`${d.url}/api/v1/admin/health`)).status, 200);
    assert.match(d.output(), /SIGHUP received: ignored/);
    d.proc.kill('SIGTERM');
    assert.deepEqual(await d.exited, { code: 0, signal: null });
  });

  /** Guards against issue 17.7: a stalled upload turned a clean SIGTERM into exit 1 (shutdown timeout). */
  it('a stalled upload does not make SIGTERM fail: lingering sockets are closed at the drain deadline', async () => {
    const d = await spawnDaemon(light('stall'));
    const port = Number(new URL(d.url).port);
    const sock = connect(port, '127.0.0.1');
    sock.on('error', () => undefined);
    await new Promise<void>((r) => sock.once('connect', () => r()));
    const boundary = 'x'.repeat(16);
    sock.write(
      `POST /api/v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 1000000\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n` +
        '\xff\xd8\xff'.padEnd(100, 'a'),
    );
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    d.proc.kill('SIGTERM');
    const exit = await d.exited;
    sock.destroy();
    assert.deepEqual(exit, { code: 0, signal: null }, d.output().slice(-2000));
    assert.ok(Date.now() - t0 < 4000, `stopped within the shutdown timeout (${Date.now() - t0} ms)`);
  });
});

/** Guards against issue 17.7: validate-config passed configurations whose referenced files do not exist. */
describe('validate-config checks referenced files', () => {
  const validate = (yaml: string) => {
    const cfg = join(tmp, `cfg-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(cfg, yaml);
    return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'validate-config', '--config', cfg], { cwd: packageRoot(), encoding: 'utf8', env: { PATH: process.env.PATH } });
  };

  it('names each missing or unreadable file, and passes once they exist', () => {
    const bad = validate(
      `server:\n  hw_profile: x86-cpu\n  model_mirror: ${join(tmp, 'no-mirror')}\nmqtt:\n  url: mqtt://127.0.0.1\n  password_file: ${join(tmp, 'no-password')}\n  ca_file: ${join(tmp, 'no-ca.pem')}\nevents:\n  ca_file: ${tmp}\n`,
    );
    assert.equal(bad.status, 1, bad.stdout);
    assert.match(bad.stderr, /^mqtt\.password_file: file does not exist/m);
    assert.match(bad.stderr, /^mqtt\.ca_file: file does not exist/m);
    assert.match(bad.stderr, /^events\.ca_file: file is not a regular file/m);
    assert.match(bad.stderr, /^server\.model_mirror: folder does not exist/m);
    const pw = join(tmp, 'password');
    writeFileSync(pw, 'secret\n');
    const good = validate(`server:\n  hw_profile: x86-cpu\n  model_mirror: ${tmp}\nmqtt:\n  url: mqtt://127.0.0.1\n  password_file: ${pw}\n`);
    assert.equal(good.status, 0, good.stderr);
  });
});
