import assert from 'node:assert/strict';
import type { ExpectedMrz } from '../fixtures/mrz-docs/identity.js';
import type { TestApp } from './app.js';
import { multipart } from './multipart.js';

/** The spec's MRZ fields as `/documents/mrz` answers them, with the warnings beyond the spec. */
export type MrzAnswer = ExpectedMrz & { warnings: string[] };

/** The answer of `POST /api/v1/documents/mrz` to one image through the test app (200 asserted). */
export async function mrzAnswer(t: TestApp, image: Buffer): Promise<MrzAnswer> {
  const { payload, headers } = multipart([{ name: 'image', file: image }]);
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as MrzAnswer;
}
