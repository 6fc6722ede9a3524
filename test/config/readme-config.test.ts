import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { configTable } from '../../scripts/config-table.js';
import { modelManifest } from '../../src/runtime/model-manifest.js';

const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');

describe('README stays true', () => {
  it('the configuration table is the one the schema generates', () => {
    const m = /<!-- config-table:start[^\n]*\n([\s\S]*?)\n<!-- config-table:end -->/.exec(readme);
    assert.ok(m, 'config table markers missing');
    assert.equal(m[1], configTable(), 'regenerate with: node --import tsx scripts/config-table.ts');
  });

  it('lists every model file of the manifest with its licence', () => {
    for (const m of modelManifest().values()) {
      assert.ok(readme.includes(`\`${m.file}\``), `${m.file} missing from the README model table`);
    }
  });

  it('starts with the install-and-start command and the test command', () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((b) => b[1]!.trim());
    assert.match(blocks[0] ?? '', /npm ci .*npm start/);
    assert.equal(blocks[1], 'npm run test:all');
  });
});
