import { spawn, type ChildProcess } from 'node:child_process';
import { packageRoot } from '../../src/core/package-root.js';

/**
 * The real daemon as systemd runs it (`node --import tsx src/cli.ts`), for
 * kill -9 tests. `env` adds VIGIL_* settings; the data folder is the caller's.
 */
export class DaemonProcess {
  private child: ChildProcess | undefined;
  output = '';

  constructor(
    readonly port: number,
    readonly dataDir: string,
    private readonly env: Record<string, string> = {},
  ) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(timeoutMs = 30_000): Promise<void> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts'], {
      cwd: packageRoot(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        VIGIL_HOST: '127.0.0.1',
        VIGIL_PORT: String(this.port),
        VIGIL_DATA_DIR: this.dataDir,
        VIGIL_LOG_LEVEL: 'warn',
        VIGIL_SERVER_HW_PROFILE: 'x86-cpu',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child = child;
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}: ${this.output}`);
      try {
        const res = await fetch(`${this.base}/api/v1/admin/health`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > end) throw new Error(`daemon not up after ${timeoutMs} ms: ${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** kill -9: no shutdown code runs. */
  async kill9(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM: the graceful path systemd takes on stop. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  async request(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as unknown) : null };
  }
}
