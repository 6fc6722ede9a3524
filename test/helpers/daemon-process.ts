import { spawnDaemon, type Daemon } from './daemon.js';

/**
 * A restartable handle on the real daemon (spawnDaemon underneath) for kill -9 tests:
 * same port and data folder across start/kill9/start.
 */
export class DaemonProcess {
  private daemon: Daemon | undefined;
  private previousOutput = '';

  constructor(
    readonly port: number,
    readonly dataDir: string,
    private readonly env: Record<string, string> = {},
  ) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get output(): string {
    return this.previousOutput + (this.daemon?.output() ?? '');
  }

  async start(timeoutMs = 30_000): Promise<void> {
    this.daemon = await spawnDaemon({ VIGIL_PORT: String(this.port), VIGIL_DATA_DIR: this.dataDir, VIGIL_LOG_LEVEL: 'warn', ...this.env }, { timeoutMs });
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    const d = this.daemon;
    this.daemon = undefined;
    if (!d) return;
    this.previousOutput += d.output();
    if (d.proc.exitCode === null && d.proc.signalCode === null) d.proc.kill(sig);
    await d.exited;
  }

  /** kill -9: no shutdown code runs. */
  kill9(): Promise<void> {
    return this.signal('SIGKILL');
  }

  /** SIGTERM: the graceful path systemd takes on stop. */
  stop(): Promise<void> {
    return this.signal('SIGTERM');
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
