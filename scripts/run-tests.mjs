#!/usr/bin/env node
// Node 20's test runner takes no glob: collect test/**/*.test.ts (or the paths given) and run
// them with tsx, one file at a time (the suites load real models and start real servers on a
// 2-core box). Extra node --test flags pass through, e.g. --test-name-pattern.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--'));
const roots = args.filter((a) => !a.startsWith('--'));

function collect(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = [];
for (const r of roots.length ? roots : ['test']) {
  if (statSync(r).isDirectory()) collect(r, files);
  else files.push(r);
}
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const res = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=300000', ...flags, ...files.map((f) => relative(process.cwd(), f))], {
  stdio: 'inherit',
});
process.exit(res.status ?? 1);
