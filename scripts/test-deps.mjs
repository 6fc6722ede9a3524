#!/usr/bin/env node
// The Debian packages the test suite runs for real (mosquitto, openssl, systemd's tools, GStreamer's
// RTSP server...) are listed in .ci/apt-packages.txt. This script is the one place that knows
// whether they are present:
//   --check    (run by `npm test`): exit 1 naming what is missing and the command that installs it,
//              instead of letting a suite die on `spawn mosquitto ENOENT` halfway through.
//   --install  (run by `npm run test:all`): install the missing ones with apt-get, as root or
//              through sudo; say clearly what to run when neither is possible.
// A package is present when the tools the tests use from it work (probes below, searched the way
// the tests search them); a package without a probe is asked of dpkg.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TEST_ALL = 'npm run test:all';

/** The sbin folders are not on a Debian user's PATH; the tests look there too (test/helpers/mosquitto.ts). */
export const SBIN_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

export function findExecutable(name, path = process.env.PATH ?? '') {
  for (const dir of [...path.split(delimiter).filter(Boolean), ...SBIN_DIRS]) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

const command = (name) => () => (findExecutable(name) ? undefined : `${name} not found`);

/** test/fixtures/rtsp-server.py runs /usr/bin/python3 with these GI modules and GStreamer elements. */
const python = (code, what) => () => {
  const res = spawnSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8' });
  if (res.error) return '/usr/bin/python3 not found';
  return res.status === 0 ? undefined : `${what} (${(res.stderr.trim().split('\n').pop() ?? '').slice(0, 160)})`;
};
const gstElements = (...elements) =>
  python(
    `import gi; gi.require_version("Gst", "1.0"); from gi.repository import Gst; Gst.init(None)\n` +
      `missing = [e for e in ${JSON.stringify(elements)} if Gst.ElementFactory.find(e) is None]\n` +
      `assert not missing, "GStreamer elements missing: " + ", ".join(missing)`,
    `GStreamer elements ${elements.join(', ')} unavailable`,
  );

const PROBES = {
  mosquitto: [command('mosquitto'), command('mosquitto_passwd')],
  openssl: [command('openssl')],
  'libjpeg-turbo-progs': [command('jpegtran')],
  systemd: [command('systemd-notify'), command('systemd-analyze')],
  'python3-gi': [python('import gi', 'python3 cannot import gi')],
  'gir1.2-gst-rtsp-server-1.0': [python('import gi; gi.require_version("GstRtspServer", "1.0"); from gi.repository import GstRtspServer', 'GstRtspServer 1.0 unavailable to python3')],
  'gstreamer1.0-plugins-base': [gstElements('videotestsrc')],
  'gstreamer1.0-plugins-good': [gstElements('jpegenc', 'rtpjpegpay')],
};

export function listedPackages() {
  return readFileSync(join(root, '.ci', 'apt-packages.txt'), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
}

function dpkgMissing(pkg) {
  const res = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  if (res.error) return 'not verifiable (no dpkg-query)';
  return res.status === 0 && res.stdout.includes('install ok installed') ? undefined : 'not installed';
}

/** [{pkg, why}] for every listed package that is not usable. */
export function missingPackages() {
  const missing = [];
  for (const pkg of listedPackages()) {
    const probes = PROBES[pkg] ?? [() => dpkgMissing(pkg)];
    const why = probes.map((p) => p()).find(Boolean);
    if (why) missing.push({ pkg, why });
  }
  return missing;
}

function describe(missing) {
  return missing.map((m) => `  - ${m.pkg}: ${m.why}`).join('\n');
}

function run(argv) {
  console.log(`test-deps: ${argv.join(' ')}`);
  const res = spawnSync(argv[0], argv.slice(1), { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (res.error) throw res.error;
  if (res.status !== 0) throw new Error(`${argv.join(' ')} exited ${res.status}`);
}

function install(missing) {
  const pkgs = missing.map((m) => m.pkg);
  const aptInstall = ['apt-get', '-o', 'DPkg::Lock::Timeout=600', 'install', '-y', '-qq', '--no-install-recommends', ...pkgs];
  const manual = `apt-get update && apt-get install -y --no-install-recommends ${pkgs.join(' ')}`;
  if (!findExecutable('apt-get')) {
    console.error(`test-deps: the tests need these Debian packages, and this system has no apt-get:\n${describe(missing)}\nInstall their equivalents, then run: npm test`);
    return 1;
  }
  let prefix;
  if (process.getuid?.() === 0) prefix = [];
  else if (findExecutable('sudo')) prefix = process.stdin.isTTY ? ['sudo'] : ['sudo', '-n'];
  else {
    console.error(
      `test-deps: the tests need these Debian packages:\n${describe(missing)}\n` + `Installing them needs root, and this user is not root and has no sudo. As root, run:\n  ${manual}\nthen: npm test`,
    );
    return 1;
  }
  try {
    run([...prefix, 'apt-get', '-o', 'DPkg::Lock::Timeout=600', 'update', '-qq']);
    run([...prefix, ...aptInstall]);
  } catch (err) {
    console.error(`test-deps: installing failed (${err.message}). As root, run:\n  ${manual}\nthen: npm test`);
    return 1;
  }
  const still = missingPackages();
  if (still.length) {
    console.error(`test-deps: still missing after apt-get install:\n${describe(still)}`);
    return 1;
  }
  console.log(`test-deps: installed ${pkgs.join(' ')}`);
  return 0;
}

function main() {
  const mode = process.argv[2];
  if (mode !== '--check' && mode !== '--install') {
    console.error('usage: node scripts/test-deps.mjs --check | --install');
    return 2;
  }
  const missing = missingPackages();
  if (missing.length === 0) return 0;
  if (mode === '--install') return install(missing);
  console.error(
    `The test suite runs real services and these Debian packages are missing:\n${describe(missing)}\n` +
      `Run \`${TEST_ALL}\` instead: it installs them (as root or through sudo) and runs the whole suite.`,
  );
  return 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
