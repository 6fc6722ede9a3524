#!/usr/bin/env node
// Builds the operator dashboard (src/ui) into dist/ui: one minified script bundled by esbuild
// with Preact, one stylesheet and index.html. Nothing is fetched at run time; the daemon
// serves these three files at / (src/core/dashboard.ts). Prints the gzipped total, which
// test/ui/bundle-size.test.ts holds under its budget.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'ui');
const out = join(root, 'dist', 'ui');

export async function buildUi({ quiet = false } = {}) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(src, 'main.tsx')],
    outfile: join(out, 'app.js'),
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'linked',
    sourcemap: false,
    logLevel: quiet ? 'error' : 'warning',
  });
  copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
  copyFileSync(join(src, 'styles.css'), join(out, 'styles.css'));
  let gz = 0;
  for (const f of readdirSync(out)) gz += gzipSync(readFileSync(join(out, f))).length;
  if (!quiet) {
    const raw = readdirSync(out).reduce((n, f) => n + statSync(join(out, f)).size, 0);
    console.log(`dashboard: ${out} (${(raw / 1024).toFixed(1)} KiB, ${(gz / 1024).toFixed(1)} KiB gzipped)`);
  }
  return { dir: out, gzipBytes: gz };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildUi({ quiet: process.argv.includes('--quiet') });
}
