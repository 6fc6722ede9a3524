import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';

/** ../shared beside the checkout (CI lays it there): real models and real test data. */
export const SHARED = resolve(packageRoot(), '..', 'shared');
export const TESTDATA = join(SHARED, 'testdata');
export const MODELS_MIRROR = join(SHARED, 'models');

export function testdata(...parts: string[]): string {
  const p = join(TESTDATA, ...parts);
  if (!existsSync(p)) throw new Error(`test data missing: ${p} (../shared must sit beside the checkout)`);
  return p;
}
