import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { spawnDaemon } from '../helpers/daemon.js';

const tmp = mkdtempSync(join(tmpdir(), 'vigil-proc-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** A unix datagram listener (python3, since Node has no AF_UNIX datagrams) that prints each message. */
function notifyListener(path: string) {
  const py = `import socket,sys\ns=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nprint('LISTENING',flush=True)\nwhile True:\n  print(s.recv(4096).decode().replace('\\n',' '),flush=True)\n`;
  const proc = spawn('python3', ['-c', py, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  let lines = '';
  proc.stdout.on('data', (d: Buffer) => (lines += d.toString()));
  const listening = new Promise<void>((resolve) => {
    const check = () => (lines.includes('LISTENING') ? resolve() : setTimeout(check, 20));
    check();
  });
  return { proc, listening, lines: () => lines };
}

describe('daemon process', () => {
  it('serves, then on SIGTERM drains and exits 0 within a bounded time', async () => {
    const d = await spawnDaemon({ VIGIL_DATA_DIR: join(tmp, 'a') });
    const health = await fetch(`${d.url}/api/v1/admin/health`);
    assert.equal(health.status, 200);
    const t0 = Date.now();
    d.proc.kill('SIGTERM');
    const { code } = await d.exited;
    assert.equal(code, 0, d.output());
    assert.ok(Date.now() - t0 < 5000, `shutdown took ${Date.now() - t0} ms`);
    assert.match(d.output(), /"msg":"stopped"/);
  });

  it('with NOTIFY_SOCKET sends READY=1, WATCHDOG=1 at half of WATCHDOG_USEC, and STOPPING=1', { skip: !hasCommand('systemd-notify') || !hasCommand('python3') }, async () => {
    const sock = join(tmp, 'notify.sock');
    const listener = notifyListener(sock);
    await listener.listening;
    try {
      const d = await spawnDaemon({ VIGIL_DATA_DIR: join(tmp, 'b'), NOTIFY_SOCKET: sock, WATCHDOG_USEC: '1000000' });
      await new Promise((r) => setTimeout(r, 1300));
      d.proc.kill('SIGTERM');
      assert.equal((await d.exited).code, 0, d.output());
      await new Promise((r) => setTimeout(r, 300));
      const got = listener.lines();
      assert.match(got, /READY=1/);
      assert.match(got, /WATCHDOG=1/);
      assert.match(got, /STOPPING=1/);
      assert.ok(got.indexOf('READY=1') < got.indexOf('STOPPING=1'));
    } finally {
      listener.proc.kill();
    }
  });

  it('refuses to start on an invalid configuration, naming the path', async () => {
    const cfg = join(tmp, 'bad.yaml');
    writeFileSync(cfg, 'face:\n  det_thresh: 2\n');
    const d = await spawnDaemon({ VIGIL_DATA_DIR: join(tmp, 'c'), VIGIL_CONFIG: cfg }, { waitReady: false });
    const { code } = await d.exited;
    assert.equal(code, 1);
    assert.match(d.output(), /face\.det_thresh: must be <= 1/);
  });

  it('vigil validate-config prints every error as path, value and message', () => {
    const cfg = join(tmp, 'bad2.yaml');
    writeFileSync(cfg, 'face:\n  det_thresh: 2\n  colour: blue\nserver:\n  hw_profile: x86-cpu\n');
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'validate-config', '--config', cfg], { cwd: packageRoot(), encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(res.status, 1);
    assert.match(res.stderr, /^face\.det_thresh: must be <= 1 \(value: 2\)$/m);
    assert.match(res.stderr, /^face\.colour: unknown setting \(value: "blue"\)$/m);
    const ok = join(tmp, 'ok.yaml');
    writeFileSync(ok, 'video:\n  enabled: true\n');
    const good = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'validate-config', '--config', ok], { cwd: packageRoot(), encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(good.status, 0, good.stderr);
  });
});

function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}
