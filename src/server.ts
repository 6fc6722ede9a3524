import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { VigilConfig } from './config/schema.js';
import { buildApp } from './app.js';
import { createLogger } from './core/logger.js';
import { SdNotify } from './core/sd-notify.js';

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
      await app.close();
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
}
