// Prints the README's configuration table from the one schema:
//   node --import tsx scripts/config-table.ts
// test/config/readme-config.test.ts fails when the README and the schema disagree.
import { ConfigSchema } from '../src/config/schema.js';
import { envLeaves } from '../src/config/env-overrides.js';

export function configTable(): string {
  const lines = ['| setting | default | environment | description |', '|---|---|---|---|'];
  for (const leaf of envLeaves(ConfigSchema)) {
    const def = JSON.stringify(leaf.schema.default);
    lines.push(`| \`${leaf.path.join('.')}\` | \`${def}\` | \`${leaf.env}\` | ${String(leaf.schema.description ?? '').replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('config-table.ts')) console.log(configTable());
