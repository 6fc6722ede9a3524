// Two builds of the daemon side by side for A/B benches (face-ab.ts, documents-ab.ts): this
// checkout against a git revision, each compiled with tsc and run as systemd runs it (node
// dist/src/cli.js, defaults, CPU provider), both on this checkout's models and hw-profiles.
// The revision's src/ is taken with `git archive` into bench/out/ab/<rev>; nothing else of the
// checkout changes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { spawnDaemon, type Daemon } from '../../test/helpers/daemon.js';

export const ROOT = packageRoot();

export function tsc(project: string): void {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { cwd: ROOT, stdio: 'inherit' });
}

/** Compiles `rev`'s src/ beside the checkout (node_modules and package root resolve to it); returns its cli.js. */
export function buildRevision(rev: string): string {
  const sha = execFileSync('git', ['rev-parse', '--short', rev], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(ROOT, 'bench', 'out', 'ab', sha);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} src tsconfig.json | tar -x -C "${dir}"`], { cwd: ROOT });
  tsc(join(dir, 'tsconfig.json'));
  return join(dir, 'dist', 'src', 'cli.js');
}

/** Compiles this checkout; returns its cli.js. */
export function buildCheckout(): string {
  tsc(join(ROOT, 'tsconfig.build.json'));
  return join(ROOT, 'dist', 'src', 'cli.js');
}

/** Starts a build and waits until `module` reports up in /admin/health (listening comes before the models are warm). */
export async function startBuild(entry: string, module: string, env: Record<string, string> = {}): Promise<Daemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-ab-'));
  const d = await spawnDaemon({ VIGIL_DATA_DIR: dataDir, VIGIL_LOG_LEVEL: 'warn', VIGIL_LIMITS_INFERENCE_QUEUE: '64', ...env }, { entry, timeoutMs: 120_000 });
  for (let i = 0; i < 600; i++) {
    const health = (await (await fetch(`${d.url}/api/v1/admin/health`)).json()) as { modules: Record<string, boolean> };
    if (health.modules[module]) return d;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${module} module of ${entry} did not come up`);
}

/** CPU time a process has used (all its threads, user + system), ms, from /proc: a cost that a loaded box's queueing does not inflate as it inflates wall time. */
export function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/**
 * CPU time of the process's main thread alone (its event loop; the thread whose id is the
 * process's), in ms: what moving work onto the worker threads takes off it, which the process's
 * total does not show.
 */
export function mainThreadCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

function statCpuMs(file: string): number {
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
