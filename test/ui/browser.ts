import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { packageRoot } from '../../src/core/package-root.js';

/** Screenshots land here (gitignored): CI keeps them as artefacts, people look at them. */
export const ARTIFACTS = join(packageRoot(), 'test-artifacts', 'dashboard');

/**
 * Debian's chromium (.ci/apt-packages.txt); CHROMIUM_PATH points elsewhere. playwright-core
 * downloads nothing: a missing browser is a failed test, never a silent skip.
 */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`no Chromium found (tried ${candidates.join(', ')}): apt-get install chromium, or set CHROMIUM_PATH`);
  return found;
}

export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath(),
    // --no-sandbox: CI and this box run tests as root, where Chromium's sandbox refuses to start.
    args: ['--no-sandbox', '--disable-dev-shm-usage', ...extraArgs],
  });
}

/** Builds dist/ui from src/ui so the browser tests exercise the current sources. */
export function buildDashboard(): void {
  const res = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'build-ui.mjs'), '--quiet'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`dashboard build failed:\n${res.stdout}\n${res.stderr}`);
}

/** Collects console errors and uncaught page errors; `allow` lists expected ones by text. */
export function watchConsole(page: Page): { errors: string[] } {
  const errors: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(`${m.text()} @ ${m.location().url}`);
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  return { errors };
}
