import { execFile } from 'node:child_process';
import type { Logger } from 'pino';

/**
 * systemd readiness and watchdog. Node cannot send unix datagrams itself, so the
 * messages go through systemd-notify(1) with --pid naming this process; the unit
 * sets NotifyAccess=all so systemd accepts them from that helper. Without
 * NOTIFY_SOCKET (not under systemd) every call is a no-op.
 */
export class SdNotify {
  private watchdog?: NodeJS.Timeout;

  constructor(
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly binary = 'systemd-notify',
  ) {}

  get enabled(): boolean {
    return Boolean(this.env.NOTIFY_SOCKET);
  }

  send(...assignments: string[]): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    return new Promise((resolve) => {
      execFile(this.binary, [`--pid=${process.pid}`, ...assignments], { env: this.env, timeout: 5000 }, (err) => {
        if (err) this.log.warn({ err: err.message, assignments }, 'systemd-notify failed');
        resolve();
      });
    });
  }

  /** READY=1, then WATCHDOG=1 at half of WATCHDOG_USEC when the unit has a watchdog. */
  async ready(status: string): Promise<void> {
    await this.send('--ready', `STATUS=${status}`);
    const usec = Number(this.env.WATCHDOG_USEC ?? 0);
    if (this.enabled && usec > 0) {
      const everyMs = Math.max(500, Math.floor(usec / 1000 / 2));
      this.watchdog = setInterval(() => void this.send('WATCHDOG=1'), everyMs);
      this.watchdog.unref();
    }
  }

  async stopping(): Promise<void> {
    if (this.watchdog) clearInterval(this.watchdog);
    await this.send('STOPPING=1');
  }
}
