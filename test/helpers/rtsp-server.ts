import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';

export { freePort } from './daemon.js';

/**
 * GStreamer's RTSP server (test/fixtures/rtsp-server.py, Debian python3-gi +
 * gir1.2-gst-rtsp-server-1.0) on a loopback port, killed and restarted at will.
 */
export class RtspTestServer {
  private child: ChildProcess | null = null;

  constructor(readonly port: number) {}

  get url(): string {
    return `rtsp://127.0.0.1:${this.port}/cam`;
  }

  async start(): Promise<void> {
    const child = spawn('/usr/bin/python3', [join(packageRoot(), 'test', 'fixtures', 'rtsp-server.py'), String(this.port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`RTSP test server did not start: ${err}`)), 15_000);
      child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`RTSP test server exited (${code}): ${err}`));
      });
    });
  }

  /** Like pulling the camera's power: SIGKILL, no goodbye to connected clients. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
    this.child = null;
  }
}
