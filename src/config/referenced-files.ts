import { accessSync, constants, statSync } from 'node:fs';
import type { VigilConfig } from './schema.js';

export interface FileProblem {
  path: string;
  value: string;
  message: string;
}

/** Settings that name a file or a folder the daemon will read, when set. */
function referenced(config: VigilConfig): { path: string; value: string; kind: 'file' | 'folder' }[] {
  return [
    { path: 'mqtt.password_file', value: config.mqtt.password_file, kind: 'file' as const },
    { path: 'mqtt.ca_file', value: config.mqtt.ca_file, kind: 'file' as const },
    { path: 'events.ca_file', value: config.events.ca_file, kind: 'file' as const },
    { path: 'server.model_mirror', value: config.server.model_mirror, kind: 'folder' as const },
  ].filter((r) => r.value !== '');
}

/**
 * What validate-config adds to the schema check: every referenced file exists, is of
 * the right kind and is readable by this user, so a typo in a broker password file or
 * a CA path is found before the service starts rather than at the first connection.
 */
export function checkReferencedFiles(config: VigilConfig): FileProblem[] {
  const problems: FileProblem[] = [];
  for (const r of referenced(config)) {
    try {
      const st = statSync(r.value);
      if (r.kind === 'file' && !st.isFile()) throw new Error('is not a regular file');
      if (r.kind === 'folder' && !st.isDirectory()) throw new Error('is not a folder');
      accessSync(r.value, constants.R_OK | (r.kind === 'folder' ? constants.X_OK : 0));
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why = e.code === 'ENOENT' ? 'does not exist' : e.code === 'EACCES' ? 'is not readable by this user' : e.message;
      problems.push({ path: r.path, value: JSON.stringify(r.value), message: `${r.kind} ${why}` });
    }
  }
  return problems;
}
