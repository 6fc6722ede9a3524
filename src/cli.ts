#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/load.js';
import { checkReferencedFiles } from './config/referenced-files.js';
import { resolveProfile } from './runtime/hw-profile.js';
import { createLogger } from './core/logger.js';
import { exitOnSignals, startServer, type RunningServer } from './server.js';
import { isLmdbWriteFailure } from './core/storage-guard.js';

const USAGE = `usage: vigil [serve] [--config FILE]
       vigil validate-config [--config FILE]

Environment: VIGIL_CONFIG, VIGIL_HOST, VIGIL_PORT, VIGIL_DATA_DIR, VIGIL_MODEL_MIRROR,
VIGIL_LOG_LEVEL, and VIGIL_<SECTION>_<SETTING> for any setting (e.g. VIGIL_FACE_DET_THRESH).`;

/** Fatal lines before the configuration (and so the log level) is known. */
function bootLogger() {
  return createLogger(process.env.VIGIL_LOG_LEVEL === 'silent' ? 'silent' : 'info');
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = positionals[0] ?? 'serve';
  if (command === 'validate-config') {
    try {
      const config = loadConfig({ file: values.config });
      resolveProfile(config.server.hw_profile);
      const missing = checkReferencedFiles(config);
      for (const p of missing) console.error(`${p.path}: ${p.message} (value: ${p.value})`);
      if (missing.length) return 1;
      console.log('configuration is valid');
      return 0;
    } catch (err) {
      if (err instanceof ConfigError) {
        for (const p of err.problems) console.error(`${p.path}: ${p.message} (value: ${p.value})`);
      } else {
        console.error(`server.hw_profile: ${(err as Error).message}`);
      }
      return 1;
    }
  }
  if (command !== 'serve') {
    console.error(USAGE);
    return 2;
  }
  let config;
  try {
    config = loadConfig({ file: values.config });
  } catch (err) {
    const problems = err instanceof ConfigError ? err.problems : undefined;
    bootLogger().fatal({ problems }, `invalid configuration: ${(err as Error).message}`);
    return 1;
  }
  // From here on a crash is one JSON line with the stack, not Node's plain-text dump.
  const log = createLogger(config.server.log_level);
  process.on('uncaughtException', (err, origin) => {
    log.fatal({ err, origin }, 'uncaught exception; exiting');
    process.exit(1);
  });
  const running: { server?: RunningServer } = {};
  process.on('unhandledRejection', (reason) => {
    // lmdb-js opens each batch's commit promise before any write claims it; when that commit
    // fails (a full disk below the reserve) and no write of ours was in it, nobody holds the
    // promise. The storage guard owns that failure: 507 on writes, restart once space is back.
    if (isLmdbWriteFailure(reason) && running.server) {
      running.server.app.vigil.storage.fault(reason);
      return;
    }
    log.fatal({ err: reason }, 'unhandled promise rejection; exiting');
    process.exit(1);
  });
  const server = await startServer(config);
  running.server = server;
  exitOnSignals(server);
  return -1; // keep running
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    bootLogger().fatal({ err }, `vigil failed to start: ${(err as Error).message}`);
    process.exit(1);
  },
);
