import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { ConfigSchema, type VigilConfig } from './schema.js';
import { applyEnvOverrides, type EnvProblem } from './env-overrides.js';
import { packageRoot } from '../core/package-root.js';
import { authProblems } from './sections/auth.js';
import { applyFaceProfile } from '../modules/face/face-profile.js';

export type ConfigProblem = EnvProblem;

export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.path}: ${p.message} (value: ${p.value})`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

// strictNumbers: an environment value of Infinity or 1e309 is not a number of any setting.
const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false, verbose: true, strictNumbers: true });
const validate = ajv.compile<VigilConfig>(ConfigSchema);

function describeValue(value: unknown): string {
  if (value === undefined) return '(missing)';
  const s = JSON.stringify(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur: unknown = root;
  for (const part of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

function toProblem(err: ErrorObject, root: unknown): ConfigProblem {
  let path = err.instancePath.split('/').slice(1).join('.');
  let value = valueAt(root, err.instancePath);
  let message = err.message ?? 'invalid';
  if (err.keyword === 'additionalProperties') {
    const extra = (err.params as { additionalProperty: string }).additionalProperty;
    path = path ? `${path}.${extra}` : extra;
    value = valueAt(root, `${err.instancePath}/${extra}`);
    message = 'unknown setting';
  } else if (err.keyword === 'anyOf') {
    const options = (err.schema as { const?: unknown }[]).map((s) => JSON.stringify(s.const)).join(', ');
    message = `must be one of ${options}`;
  }
  return { path: path || '(root)', value: describeValue(value), message };
}

export interface LoadOptions {
  /** YAML file; when omitted VIGIL_CONFIG is used, and without either the embedded defaults. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Overrides applied after the file and environment (tests use this). */
  overrides?: Partial<{ [K in keyof VigilConfig]: Partial<VigilConfig[K]> }>;
  cwd?: string;
}

function readFileConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: '(file)', value: file, message: `cannot read: ${(err as Error).message}` }]);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new ConfigError([{ path: '(file)', value: file, message: `not valid YAML: ${(err as Error).message}` }]);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError([{ path: '(root)', value: describeValue(parsed), message: 'must be a mapping of module sections' }]);
  }
  return parsed as Record<string, unknown>;
}

/** Fills the settings whose defaults depend on other settings, and makes every path absolute. */
function resolvePaths(config: VigilConfig, cwd: string): VigilConfig {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  const dataDir = abs(config.server.data_dir);
  const modelsDir = config.face.models_dir ? abs(config.face.models_dir) : join(packageRoot(), 'models');
  return {
    ...config,
    server: { ...config.server, data_dir: dataDir, model_mirror: config.server.model_mirror ? abs(config.server.model_mirror) : '' },
    face: { ...config.face, models_dir: modelsDir },
    document: { ...config.document, models_dir: config.document.models_dir ? abs(config.document.models_dir) : modelsDir },
    person: {
      ...config.person,
      model_path: config.person.model_path ? abs(config.person.model_path) : join(modelsDir, 'person_det_yolox_nano_416.onnx'),
    },
    video: {
      ...config.video,
      file_roots: config.video.file_roots.length ? config.video.file_roots.map((r) => (isAbsolute(r) ? r : resolve(dataDir, r))) : [join(dataDir, 'media')],
    },
    identity: { ...config.identity, watchlist_dir: config.identity.watchlist_dir ? abs(config.identity.watchlist_dir) : join(dataDir, 'watchlists') },
  };
}

/** TLS needs both files; one alone would silently serve plain HTTP. */
function tlsProblems(config: VigilConfig): ConfigProblem[] {
  const { tls_cert_file: cert, tls_key_file: key } = config.server;
  if (Boolean(cert) === Boolean(key)) return [];
  return [{ path: cert ? 'server.tls_key_file' : 'server.tls_cert_file', value: '""', message: 'tls_cert_file and tls_key_file go together' }];
}

/** YAML file, then environment, then explicit overrides; validated against the one schema. */
export function loadConfig(options: LoadOptions = {}): VigilConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = options.file ?? env.VIGIL_CONFIG;
  const raw = file ? readFileConfig(isAbsolute(file) ? file : resolve(cwd, file)) : {};
  const problems = applyEnvOverrides(raw, env, ConfigSchema);
  for (const [section, values] of Object.entries(options.overrides ?? {})) {
    const current = (raw[section] as Record<string, unknown> | undefined) ?? {};
    raw[section] = { ...current, ...values };
  }
  // Validation fills defaults in place; give it a copy so `raw` still shows what the user wrote.
  const candidate = structuredClone(raw);
  if (!validate(candidate)) {
    const errors = validate.errors ?? [];
    // An enum (anyOf of literals) also reports one sub-error per option; keep the anyOf one.
    const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
    const kept = errors.filter((e) => e.keyword === 'anyOf' || !anyOfPaths.has(e.instancePath));
    problems.push(...kept.map((e) => toProblem(e, raw)));
  } else {
    const valid = candidate as VigilConfig;
    problems.push(...authProblems(valid.auth.tokens), ...tlsProblems(valid), ...applyFaceProfile(raw.face as Record<string, unknown> | undefined, valid.face));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return resolvePaths(candidate as VigilConfig, cwd);
}
