import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.js';
import { loadConfig, type LoadOptions } from '../../src/config/load.js';
import type { VigilConfig } from '../../src/config/schema.js';

export interface TestApp {
  app: FastifyInstance;
  config: VigilConfig;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The real app (real models from models/, filled from ../shared/models by pretest)
 * on a fresh temporary data folder, CPU profile, silent logs.
 */
export async function testApp(overrides: NonNullable<LoadOptions['overrides']> = {}, deps: AppDeps = {}, keepDataDir?: string): Promise<TestApp> {
  const dataDir = keepDataDir ?? mkdtempSync(join(tmpdir(), 'vigil-test-'));
  const config = loadConfig({
    env: {},
    overrides: { ...overrides, server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir, ...(overrides.server ?? {}) } },
  });
  const app = await buildApp(config, deps);
  await app.ready();
  return {
    app,
    config,
    dataDir,
    close: async () => {
      await app.close();
      if (!keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every error body has exactly this shape (extra fields allowed). */
export function assertErrorShape(body: unknown, statusCode: number, code?: string): void {
  const b = body as Record<string, unknown>;
  if (b.statusCode !== statusCode || typeof b.code !== 'string' || typeof b.error !== 'string' || typeof b.message !== 'string') {
    throw new Error(`not an error body with status ${statusCode}: ${JSON.stringify(body)}`);
  }
  if (!/^[A-Z][A-Z0-9_]*$/.test(b.code)) throw new Error(`code is not stable upper-case: ${b.code}`);
  if (code && b.code !== code) throw new Error(`expected code ${code}, got ${b.code}: ${JSON.stringify(body)}`);
}
