import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';

interface Kernel {
  wat: string;
}
interface BuildScript {
  KERNELS: Kernel[];
  tsPathOf(k: Kernel): string;
  compileKernel(k: Kernel): Promise<Buffer>;
  renderTs(k: Kernel, b: Buffer): string;
}

describe('WebAssembly kernels', () => {
  it('each embedded .wasm.ts holds what its .wat compiles to (guards a stale build)', async () => {
    const script = (await import(join(packageRoot(), 'scripts', 'build-wasm-kernels.mjs'))) as BuildScript;
    assert.ok(script.KERNELS.length >= 2);
    for (const kernel of script.KERNELS) {
      const ts = readFileSync(join(packageRoot(), script.tsPathOf(kernel)), 'utf8');
      assert.equal(ts, script.renderTs(kernel, await script.compileKernel(kernel)), `${kernel.wat}: run node scripts/build-wasm-kernels.mjs`);
    }
  });
});
