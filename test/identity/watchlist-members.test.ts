import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { enroll, person } from './helpers.js';

interface Page {
  name: string;
  total: number;
  offset: number;
  limit: number;
  identities: { identity_id: string; label: string; samples: number; metadata: Record<string, unknown>; enrolled_at: string; updated_at: string }[];
}

describe('GET /api/v1/watchlist/{watchlist_name}: the identities of a watchlist, paginated', () => {
  let t: TestApp;
  const get = async (url: string) => t.app.inject({ url });
  before(async () => {
    t = await testApp();
    // Three identities in "staff" (one with two samples), one in "default": pages must not mix watchlists.
    for (const [id, who, file] of [
      ['amy', 'bbt_amy', 'amy1.png'],
      ['amy', 'bbt_amy', 'amy2.png'],
      ['howard', 'bbt_howard', 'howard1.png'],
      ['bernadette', 'bbt_bernadette', 'bernadette1.png'],
    ] as const) {
      const res = await enroll(t.app, person(who, file), { label: who.slice(4), identity_id: id, watchlist_name: 'staff', metadata: `{"who": "${who}"}` });
      assert.equal(res.statusCode, 200, res.body);
    }
    assert.equal((await enroll(t.app, person('bbt_howard', 'howard2.png'), { label: 'elsewhere' })).statusCode, 200);
  });
  after(async () => t.close());

  it('lists labels, ids, sample counts and enrolment times, oldest enrolment first', async () => {
    const res = await get('/api/v1/watchlist/staff');
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json() as Page;
    assert.equal(page.name, 'staff');
    assert.equal(page.total, 3);
    assert.deepEqual({ offset: page.offset, limit: page.limit }, { offset: 0, limit: 50 });
    assert.deepEqual(
      page.identities.map((i) => [i.identity_id, i.label, i.samples]),
      [
        ['amy', 'amy', 2],
        ['howard', 'howard', 1],
        ['bernadette', 'bernadette', 1],
      ],
    );
    assert.deepEqual(page.identities[0]!.metadata, { who: 'bbt_amy' });
    for (const i of page.identities) {
      assert.match(i.enrolled_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(i.updated_at >= i.enrolled_at);
    }
    // The second sample of amy moved updated_at, not enrolled_at.
    assert.ok(page.identities[0]!.updated_at > page.identities[0]!.enrolled_at);
  });

  it('pages with offset and limit; an offset past the end is an empty page', async () => {
    const p1 = (await get('/api/v1/watchlist/staff?limit=2')).json() as Page;
    const p2 = (await get('/api/v1/watchlist/staff?limit=2&offset=2')).json() as Page;
    assert.deepEqual(
      p1.identities.map((i) => i.identity_id),
      ['amy', 'howard'],
    );
    assert.deepEqual(
      p2.identities.map((i) => i.identity_id),
      ['bernadette'],
    );
    assert.equal(p2.total, 3);
    const past = (await get('/api/v1/watchlist/staff?offset=10')).json() as Page;
    assert.deepEqual(past.identities, []);
    assert.equal(past.total, 3);
  });

  it('"default" always exists; deleting an identity removes it from the page', async () => {
    const d = (await get('/api/v1/watchlist/default')).json() as Page;
    assert.deepEqual(
      d.identities.map((i) => i.label),
      ['elsewhere'],
    );
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/api/v1/watchlist/howard' })).statusCode, 200);
    const after = (await get('/api/v1/watchlist/staff')).json() as Page;
    assert.deepEqual(
      after.identities.map((i) => i.identity_id),
      ['amy', 'bernadette'],
    );
    assert.equal(after.total, 2);
  });

  it('an unknown watchlist is 404 WATCHLIST_NOT_FOUND; bad names and bounds are 400', async () => {
    const missing = await get('/api/v1/watchlist/nobody-here');
    assert.equal(missing.statusCode, 404);
    assertErrorShape(missing.json(), 404, 'WATCHLIST_NOT_FOUND');
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'offset=-1', 'offset=1.5', 'limit=1e309', 'offset=1e309', 'extra=1']) {
      const r = await get(`/api/v1/watchlist/staff?${q}`);
      assert.equal(r.statusCode, 400, `${q}: ${r.body}`);
      assertErrorShape(r.json(), 400);
    }
    const bad = await get(`/api/v1/watchlist/${encodeURIComponent('../etc')}`);
    assert.equal(bad.statusCode, 400);
    assertErrorShape(bad.json(), 400, 'INVALID_FIELD');
  });

  it('is in the OpenAPI document with its parameters', async () => {
    const doc = (await get('/docs/json')).json() as { paths: Record<string, { get?: { parameters?: { name: string }[] } }> };
    const op = doc.paths['/api/v1/watchlist/{watchlist_name}']?.get;
    assert.ok(op, 'documented');
    assert.deepEqual(op.parameters!.map((p) => p.name).sort(), ['limit', 'offset', 'watchlist_name']);
  });
});
