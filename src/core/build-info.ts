import { execFile } from 'node:child_process';
import { packageRoot } from './package-root.js';

let commit: Promise<string | null> | undefined;

/**
 * The commit this build came from: VIGIL_COMMIT when packaging set it, else the git HEAD
 * of the installation folder (a checkout), else null. Asked once, off the event loop.
 */
export function buildCommit(): Promise<string | null> {
  commit ??= new Promise((resolve) => {
    const fromEnv = process.env.VIGIL_COMMIT?.trim();
    if (fromEnv) return resolve(fromEnv);
    execFile('git', ['rev-parse', 'HEAD'], { cwd: packageRoot(), timeout: 2000 }, (err, stdout) => {
      const sha = stdout?.trim();
      resolve(!err && /^[0-9a-f]{40}$/.test(sha) ? sha : null);
    });
  });
  return commit;
}
