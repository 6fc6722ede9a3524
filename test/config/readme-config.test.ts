import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { configTable } from '../../scripts/config-table.js';
import { modelManifest } from '../../src/runtime/model-manifest.js';
import { SHARED } from '../helpers/paths.js';

const read = (file: string) => readFileSync(join(packageRoot(), file), 'utf8');
const readme = read('README.md');

describe('README and docs stay true', () => {
  it('the configuration table is the one the schema generates', () => {
    const m = /<!-- config-table:start[^\n]*\n([\s\S]*?)\n<!-- config-table:end -->/.exec(read('docs/configuration.md'));
    assert.ok(m, 'config table markers missing from docs/configuration.md');
    assert.equal(m[1], configTable(), 'regenerate with: node --import tsx scripts/config-table.ts --write');
  });

  it('lists every model file of the manifest with its licence', () => {
    const models = read('docs/deployment.md');
    for (const m of modelManifest().values()) {
      assert.ok(models.includes(`\`${m.file}\``), `${m.file} missing from the model table of docs/deployment.md`);
    }
  });

  it('starts with the install-and-start command and the test command', () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((b) => b[1]!.trim());
    assert.match(blocks[0] ?? '', /npm ci .*npm start/);
    assert.equal(blocks[1], 'ONNXRUNTIME_NODE_INSTALL=skip npm ci && npm run test:all');
    // CI runs exactly the README's second command (the brief's contract), not a variant of it.
    assert.ok(read('.ci/run').split('\n').includes(blocks[1]!), '.ci/run must run the README test command as written');
  });

  it('docs/spec.md is the interface spec of ../shared, word for word', () => {
    assert.equal(read('docs/spec.md'), readFileSync(join(SHARED, 'SPEC.md'), 'utf8'), 'copy ../shared/SPEC.md to docs/spec.md');
  });

  it('every relative link of the README and docs/ points at a file that exists', () => {
    const pages = ['README.md', ...['api', 'architecture', 'configuration', 'deployment', 'documents', 'events', 'face', 'liveness', 'video', 'accuracy', 'benchmarks'].map((p) => `docs/${p}.md`)];
    for (const page of pages) {
      const dir = page.includes('/') ? 'docs/' : '';
      for (const [, target] of read(page).matchAll(/\]\(([^)#:\s]+)(?:#[^)]*)?\)/g)) {
        assert.doesNotThrow(() => read(join(dir, target!)), `${page} links to ${target}, which does not exist`);
      }
    }
  });
});
