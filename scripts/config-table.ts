// Prints the configuration table of docs/configuration.md from the one schema:
//   node --import tsx scripts/config-table.ts          (print)
//   node --import tsx scripts/config-table.ts --write  (replace it between the markers)
// test/config/readme-config.test.ts fails when the docs and the schema disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema } from '../src/config/schema.js';
import { envLeaves } from '../src/config/env-overrides.js';
import { packageRoot } from '../src/core/package-root.js';

export function configTable(): string {
  const lines = ['| setting | default | environment | description |', '|---|---|---|---|'];
  for (const leaf of envLeaves(ConfigSchema)) {
    const def = JSON.stringify(leaf.schema.default);
    lines.push(`| \`${leaf.path.join('.')}\` | \`${def}\` | \`${leaf.env}\` | ${String(leaf.schema.description ?? '').replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('config-table.ts')) {
  if (process.argv.includes('--write')) {
    const file = join(packageRoot(), 'docs', 'configuration.md');
    const text = readFileSync(file, 'utf8');
    const next = text.replace(/(<!-- config-table:start[^\n]*\n)[\s\S]*?(\n<!-- config-table:end -->)/, (_m, a: string, b: string) => a + configTable() + b);
    writeFileSync(file, next);
  } else console.log(configTable());
}
