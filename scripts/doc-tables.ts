// The tables of docs/ that are generated from the code, each between markers
// <!-- NAME:start ... --> and <!-- NAME:end -->:
//   error-codes  (docs/api.md)     from src/core/error-codes.ts
//   event-types  (docs/events.md)  from src/core/event-schemas.ts
//   endpoints    (docs/api.md)     from the OpenAPI document of the app
//   config-table (docs/configuration.md), from the config schema (scripts/config-table.ts)
// node --import tsx scripts/doc-tables.ts --write rewrites them all; the tests fail when a table
// and its source disagree (test/config/readme-config.test.ts, test/core/registries.test.ts,
// test/admin/openapi.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../src/core/error-codes.js';
import { EVENT_TYPE_INFO } from '../src/core/event-schemas.js';
import { packageRoot } from '../src/core/package-root.js';
import { configTable } from './config-table.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function errorCodeTable(): string {
  const lines = ['| status | code | module | when |', '|---|---|---|---|'];
  const rows = Object.entries(ERROR_CODES).sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b));
  for (const [code, e] of rows) lines.push(`| ${e.status} | \`${code}\` | ${e.module} | ${cell(e.when)} |`);
  return lines.join('\n');
}

function fields(schema: unknown): string {
  const props = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  return Object.keys(props)
    .map((p) => `\`${p}\``)
    .join(', ');
}

export function eventTypeTable(): string {
  const lines = ['| type | source | when | `data` fields |', '|---|---|---|---|'];
  for (const [type, info] of Object.entries(EVENT_TYPE_INFO)) lines.push(`| \`${type}\` | ${info.source} | ${cell(info.when)} | ${fields(info.data)} |`);
  return lines.join('\n');
}

const DOC_OF_TAG: Record<string, string> = {
  face: '[face](face.md)',
  identity: '[identity](face.md#watchlists-and-1n-identification-identity-module)',
  document: '[documents](documents.md)',
  liveness: '[liveness](liveness.md)',
  video: '[video](video.md)',
  events: '[events](events.md)',
  admin: '[admin](#administration)',
};

/** One row per operation of an OpenAPI document, in document order. */
export function endpointTable(doc: { paths: Record<string, Record<string, { tags?: string[]; summary?: string }>> }): string {
  const lines = ['| capability | method | path | what |', '|---|---|---|---|'];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? '';
      lines.push(`| ${DOC_OF_TAG[tag] ?? tag} | ${method.toUpperCase()} | \`${path}\` | ${cell(op.summary ?? '')} |`);
    }
  }
  return lines.join('\n');
}

/** The text between the markers of `name` in a docs page, or undefined. */
export function docTable(page: string, name: string): string | undefined {
  const text = readFileSync(join(packageRoot(), 'docs', page), 'utf8');
  return new RegExp(`<!-- ${name}:start[^\\n]*\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(text)?.[1];
}

function writeTable(page: string, name: string, table: string): void {
  const file = join(packageRoot(), 'docs', page);
  const text = readFileSync(file, 'utf8');
  const re = new RegExp(`(<!-- ${name}:start[^\\n]*\\n)[\\s\\S]*?(\\n<!-- ${name}:end -->)`);
  if (!re.test(text)) throw new Error(`docs/${page} has no ${name} markers`);
  writeFileSync(
    file,
    text.replace(re, (_m, a: string, b: string) => a + table + b),
  );
}

if (process.argv[1]?.endsWith('doc-tables.ts') && process.argv.includes('--write')) {
  writeTable('api.md', 'error-codes', errorCodeTable());
  writeTable('events.md', 'event-types', eventTypeTable());
  writeTable('configuration.md', 'config-table', configTable());
  // The endpoint list needs the app's OpenAPI document (every module, video included).
  const { testApp } = await import('../test/helpers/app.js');
  const t = await testApp({ video: { enabled: true } });
  try {
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    writeTable('api.md', 'endpoints', endpointTable(res.json()));
  } finally {
    await t.close();
  }
  console.log('doc-tables: docs/api.md, docs/events.md and docs/configuration.md rewritten');
}
