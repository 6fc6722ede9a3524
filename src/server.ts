import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { VigilConfig } from './config/schema.js';
import { buildApp } from './app.js';
import { createLogger } from './core/logger.js';
import { SdNotify } from './core/sd-notify.js';
import { isLmdbWriteFailure } from './core/storage-guard.js';

/** Exit status asking systemd (Restart=on-failure) for a fresh process: EX_TEMPFAIL. */
export const EXIT_RESTART = 75;

export interface RunningServer {
  app: FastifyInstance;
  address: string;
  close(): Promise<void>;
}

/**
 * Process concerns only: data folder, listen, signals, systemd notify and a
 * bounded graceful close. Everything else is built by buildApp.
 */
export async function startServer(config: VigilConfig): Promise<RunningServer> {
  const log = createLogger(config.server.log_level);
  mkdirSync(config.server.data_dir, { recursive: true });
  const notify = new SdNotify(log);
  const t0 = performance.now();
  const app = await buildApp(config, { logger: log });
  const address = await app.listen({ host: config.server.host, port: config.server.port });
  const health = app.vigil.status.health();
  const startupMs = Math.round(performance.now() - t0);
  log.info({ address, startup_ms: startupMs, healthy: health.healthy }, 'vigil ready');
  await notify.ready(`serving on ${address}`);

  // lmdb-js rejects a promise nobody holds when a commit fails (a disk that filled
  // faster than the storage reserve): that is a storage fault to report and recover
  // from, not a reason to die. Anything else unhandled is a bug: logged, then exit 1
  // as node itself would.
  process.on('unhandledRejection', (reason) => {
    if (isLmdbWriteFailure(reason)) {
      app.vigil.storage.fault(reason);
      return;
    }
    log.fatal({ err: reason }, 'unhandled promise rejection');
    process.exit(1);
  });
  // After a failed LMDB commit lmdb-js cannot write in this process again; once space
  // is back a fresh process reopens the stores (LMDB kept every committed write, as it
  // does through kill -9). Nothing is closed on the way out: closing a wedged lmdb-js
  // environment can hang or corrupt the heap.
  app.vigil.storage.onRestartNeeded = (why) => {
    log.warn({ why, exit_code: EXIT_RESTART }, 'data disk has space again: restarting to reopen storage');
    process.exit(EXIT_RESTART);
  };

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      log.info('shutting down: draining requests and stopping modules');
      await notify.stopping();
      // Bounded: a stuck module must not keep systemd waiting until its own SIGKILL.
      const timer = setTimeout(() => {
        log.error({ timeout_ms: config.server.shutdown_timeout_ms }, 'shutdown timed out; exiting');
        process.exit(1);
      }, config.server.shutdown_timeout_ms);
      timer.unref();
      // Requests get half the budget to finish; then lingering sockets (a stalled upload,
      // a client that never reads) are destroyed so the modules still stop in time and
      // a clean stop stays exit 0.
      const drain = setTimeout(() => {
        log.warn('shutdown: closing connections that did not finish in time');
        app.server.closeAllConnections();
      }, config.server.shutdown_timeout_ms / 2);
      drain.unref();
      await app.close();
      clearTimeout(drain);
      clearTimeout(timer);
      log.info('stopped');
    })();
    return closing;
  };
  return { app, address, close };
}

/** Wires SIGTERM/SIGINT to a graceful close and exits when it is done. */
export function exitOnSignals(server: RunningServer): void {
  const onSignal = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'signal received');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        server.app.log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // SIGHUP (a closed terminal, logrotate's habit) must never stop the daemon. Logs go to
  // stdout (journald under systemd): there is no log file to reopen, so it is ignored.
  process.on('SIGHUP', () => server.app.log.info('SIGHUP received: ignored (logs go to stdout; nothing to reopen)'));
}
