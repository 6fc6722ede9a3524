import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { packageRoot } from '../../src/core/package-root.js';

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface Daemon {
  proc: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnOptions {
  waitReady?: boolean;
  timeoutMs?: number;
  /** A built entry point to run (a dist/src/cli.js) instead of src/cli.ts through tsx. */
  entry?: string;
}

/** The real daemon as systemd would run it (src/cli.ts through tsx, or a built entry), on loopback. */
export async function spawnDaemon(env: Record<string, string>, opts: SpawnOptions = {}): Promise<Daemon> {
  const port = env.VIGIL_PORT ? Number(env.VIGIL_PORT) : await freePort();
  let out = '';
  const proc = spawn(process.execPath, opts.entry ? [opts.entry] : ['--import', 'tsx', 'src/cli.ts'], {
    cwd: packageRoot(),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      VIGIL_HOST: '127.0.0.1',
      VIGIL_PORT: String(port),
      VIGIL_LOG_LEVEL: 'info',
      VIGIL_SERVER_HW_PROFILE: 'x86-cpu',
      ...env,
    } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const daemon: Daemon = { proc, url: `http://127.0.0.1:${port}`, output: () => out, exited };
  if (opts.waitReady !== false) {
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`daemon exited early (${proc.exitCode}):\n${out}`);
      try {
        const res = await fetch(`${daemon.url}/api/v1/admin/health`);
        // 503: listening, with a module failed (the test looks at which).
        if (res.status === 200 || res.status === 503) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`daemon not ready in time:\n${out}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return daemon;
}
