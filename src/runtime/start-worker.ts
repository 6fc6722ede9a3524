import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose entry is `name` (without extension) beside the module at
 * `moduleUrl`. The built daemon runs the .js file directly. Tests and benches run the .ts sources
 * under tsx, whose ESM loader Node 20 does not carry into worker threads; there the worker
 * registers tsx's require hook and loads the entry through it.
 */
export function startWorker(moduleUrl: string, name: string): Worker {
  if (!moduleUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, moduleUrl));
  const entry = fileURLToPath(new URL(`./${name}.ts`, moduleUrl));
  const tsxCjs = createRequire(moduleUrl).resolve('tsx/cjs');
  return new Worker(`require(${JSON.stringify(tsxCjs)}); require(${JSON.stringify(entry)});`, { eval: true });
}
