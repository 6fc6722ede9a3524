import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './daemon.js';

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * A real Prometheus server (Debian's `prometheus` binary) scraping one target every
 * second, on a free loopback port with its own TSDB folder; stop() kills it by pid.
 */
export class Prometheus {
  port = 0;
  readonly dir = mkdtempSync(join(tmpdir(), 'vigil-prometheus-'));
  private child: ChildProcess | undefined;
  log = '';

  constructor(private readonly target: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.port = await freePort();
    const conf = join(this.dir, 'prometheus.yml');
    writeFileSync(
      conf,
      ['global:', '  scrape_interval: 1s', '  scrape_timeout: 900ms', 'scrape_configs:', '  - job_name: vigil', '    static_configs:', `      - targets: ['${this.target}']`, ''].join('\n'),
    );
    this.child = spawn('prometheus', [`--config.file=${conf}`, `--storage.tsdb.path=${join(this.dir, 'data')}`, `--web.listen-address=127.0.0.1:${this.port}`, '--log.level=warn'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d: Buffer) => (this.log += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.log += d.toString()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`prometheus exited (${this.child.exitCode}):\n${this.log}`);
      try {
        if ((await fetch(`${this.url}/-/ready`)).status === 200) return;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`prometheus not ready:\n${this.log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** An instant query through the HTTP API. */
  async query(promql: string): Promise<PromSample[]> {
    const res = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as { status: string; data?: { result: PromSample[] }; error?: string };
    if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error}`);
    return body.data!.result;
  }

  /** The scrape targets' health as Prometheus sees it. */
  async targets(): Promise<{ health: string; lastError: string }[]> {
    const body = (await (await fetch(`${this.url}/api/v1/targets`)).json()) as { data: { activeTargets: { health: string; lastError: string }[] } };
    return body.data.activeTargets;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
