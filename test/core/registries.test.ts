import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, isErrorCode } from '../../src/core/error-codes.js';
import { EVENT_TYPE_INFO } from '../../src/core/event-schemas.js';
import { EVENT_TYPES } from '../../src/core/event-types.js';
import { packageRoot } from '../../src/core/package-root.js';
import { docTable, errorCodeTable, eventTypeTable } from '../../scripts/doc-tables.js';

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}
const src = sources(join(packageRoot(), 'src'))
  .filter((f) => !f.endsWith('error-codes.ts') && !f.endsWith('.generated.ts'))
  .map((f) => ({ f, text: readFileSync(f, 'utf8') }));

/** Status of each typed error class (src/core/errors.ts and the liveness rate-limit error). */
const CLASS_STATUS: Record<string, number> = { BadRequestError: 400, NotFoundError: 404, ConflictError: 409, UnprocessableError: 422, ServiceUnavailableError: 503, RateLimitError: 429 };

// Guards: error codes answered by the daemon but missing from the documentation (9 were).
describe('error code registry', () => {
  it('docs/api.md lists exactly the registered codes', () => {
    assert.equal(docTable('api.md', 'error-codes'), errorCodeTable(), 'regenerate with: node --import tsx scripts/doc-tables.ts --write');
  });

  it('every registered code is answered somewhere in src/', () => {
    for (const code of Object.keys(ERROR_CODES)) {
      assert.ok(
        src.some(({ text }) => text.includes(`'${code}'`)),
        `${code} is registered but never used`,
      );
    }
  });

  it('every typed error is thrown with the status its code is registered with', () => {
    let checked = 0;
    for (const { f, text } of src) {
      for (const m of text.matchAll(/new (\w+Error)\('([A-Z][A-Z0-9_]+)'/g)) {
        const status = CLASS_STATUS[m[1]!];
        if (status === undefined) continue;
        assert.ok(isErrorCode(m[2]!), `${f}: ${m[2]} is not registered`);
        assert.equal(ERROR_CODES[m[2] as keyof typeof ERROR_CODES].status, status, `${f}: ${m[2]} thrown as ${m[1]} (${status})`);
        checked++;
      }
      for (const m of text.matchAll(/AppError\((\d{3}), '([A-Z][A-Z0-9_]+)'/g)) {
        assert.equal(ERROR_CODES[m[2] as keyof typeof ERROR_CODES]?.status, Number(m[1]), `${f}: ${m[2]} thrown with ${m[1]}`);
        checked++;
      }
      for (const m of text.matchAll(/\{ status: (\d{3}), code: '([A-Z][A-Z0-9_]+)' \}/g)) {
        assert.equal(ERROR_CODES[m[2] as keyof typeof ERROR_CODES]?.status, Number(m[1]), `${f}: fastify mapping ${m[2]}`);
        checked++;
      }
    }
    assert.ok(checked > 40, `only ${checked} throw sites found: the patterns above no longer match the code`);
  });
});

describe('event type registry', () => {
  it('describes each of the ten event types', () => {
    assert.deepEqual(Object.keys(EVENT_TYPE_INFO).sort(), [...EVENT_TYPES].sort());
  });

  it('docs/events.md lists them as the registry does', () => {
    assert.equal(docTable('events.md', 'event-types'), eventTypeTable(), 'regenerate with: node --import tsx scripts/doc-tables.ts --write');
  });
});
