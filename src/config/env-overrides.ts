import type { TSchema } from 'typebox';

/** Operator-contract names that win over the derived VIGIL_SERVER_* ones. */
export const ENV_ALIASES: Record<string, string[]> = {
  VIGIL_HOST: ['server', 'host'],
  VIGIL_PORT: ['server', 'port'],
  VIGIL_DATA_DIR: ['server', 'data_dir'],
  VIGIL_MODEL_MIRROR: ['server', 'model_mirror'],
  VIGIL_LOG_LEVEL: ['server', 'log_level'],
};

/** Environment variables that are not settings but are ours. */
const RESERVED = new Set(['VIGIL_CONFIG']);

export interface EnvLeaf {
  env: string;
  path: string[];
  schema: Record<string, unknown>;
}

/** Every leaf setting with its derived variable name: face.det_thresh -> VIGIL_FACE_DET_THRESH. */
export function envLeaves(schema: TSchema): EnvLeaf[] {
  const out: EnvLeaf[] = [];
  const sections = (schema as { properties: Record<string, { properties: Record<string, Record<string, unknown>> }> }).properties;
  for (const [section, sectionSchema] of Object.entries(sections)) {
    for (const [key, leaf] of Object.entries(sectionSchema.properties)) {
      out.push({ env: `VIGIL_${section}_${key}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_'), path: [section, key], schema: leaf });
    }
  }
  return out;
}

export interface EnvProblem {
  path: string;
  value: string;
  message: string;
}

/** Parses an environment string by the leaf's schema type; schema validation checks ranges later. */
function parseEnvValue(raw: string, leaf: Record<string, unknown>): unknown {
  const type = leaf.type;
  if (type === 'integer' || type === 'number') {
    const n = Number(raw.trim());
    if (raw.trim() === '' || Number.isNaN(n)) throw new Error('expected a number');
    return n;
  }
  if (type === 'boolean') {
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    throw new Error('expected true or false');
  }
  // Maps (identity.alert_thresholds) are written as JSON in the environment.
  if (type === 'object') return JSON.parse(raw) as unknown;
  if (type === 'array') {
    const t = raw.trim();
    if (t.startsWith('[')) return JSON.parse(t) as unknown;
    // Lists of strings (video.file_roots): comma-separated.
    if ((leaf.items as { type?: string } | undefined)?.type === 'string')
      return t
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
    return t.split(/[,x]/).map((p) => {
      const n = Number(p.trim());
      if (Number.isNaN(n)) throw new Error('expected a list of numbers, e.g. 640,640');
      return n;
    });
  }
  return raw;
}

/** Applies VIGIL_* variables onto the raw (file) configuration; environment wins over the file. */
export function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, schema: TSchema): EnvProblem[] {
  const problems: EnvProblem[] = [];
  const leaves = envLeaves(schema);
  const byName = new Map(leaves.map((l) => [l.env, l]));
  const set = (path: string[], value: unknown) => {
    const [section, key] = path as [string, string];
    const current = raw[section];
    const obj = current && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : {};
    obj[key] = value;
    raw[section] = obj;
  };
  const apply = (name: string, path: string[], value: string) => {
    const leaf = byName.get(`VIGIL_${path.join('_')}`.toUpperCase());
    try {
      set(path, parseEnvValue(value, leaf?.schema ?? {}));
    } catch (err) {
      problems.push({ path: `env:${name}`, value, message: (err as Error).message });
    }
  };
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('VIGIL_') || value === undefined || RESERVED.has(name) || name in ENV_ALIASES) continue;
    const leaf = byName.get(name);
    if (!leaf) {
      problems.push({ path: `env:${name}`, value, message: 'unknown setting (see the configuration table in docs/configuration.md)' });
      continue;
    }
    apply(name, leaf.path, value);
  }
  // Aliases last, so VIGIL_PORT wins over VIGIL_SERVER_PORT.
  for (const [name, path] of Object.entries(ENV_ALIASES)) {
    const value = env[name];
    if (value !== undefined) apply(name, path, value);
  }
  return problems;
}
