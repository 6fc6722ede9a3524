import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import type { VigilEvent } from '../../src/core/event-types.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { enroll, face, identify, person, watchlists } from './helpers.js';

describe('identity: watchlist enrol / identify / delete / list on the real models', () => {
  let t: TestApp;
  const events: VigilEvent[] = [];
  before(async () => {
    t = await testApp({ identity: { alert_threshold: 0.5, alert_thresholds: { vip: 0.99 } } });
    t.app.vigil.bus.subscribe('test', (e) => {
      if (e.source === 'identity') events.push(e);
    });
  });
  after(async () => t.close());

  it('"default" exists before any enrolment: listed with size 0, identify answers no matches', async () => {
    assert.deepEqual(await watchlists(t.app), { default: { name: 'default', size: 0, samples: 0, stale_samples: 0 } });
    const res = await identify(t.app, person('bbt_amy', 'amy2.png'));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().matches, []);
  });

  let amy = '';
  it('enrols with a generated identity_id and returns the documented body', async () => {
    const res = await enroll(t.app, person('bbt_amy', 'amy1.png'), { label: 'Amy', metadata: '{"badge": 12, "team": "lab"}' });
    assert.equal(res.statusCode, 200, res.body);
    const b = res.json();
    assert.match(b.identity_id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...b, identity_id: undefined, face: undefined },
      {
        identity_id: undefined,
        label: 'Amy',
        watchlist: 'default',
        metadata: { badge: 12, team: 'lab' },
        samples: 1,
        created: true,
        face: undefined,
      },
    );
    assert.equal(b.face.has_embedding, true);
    assert.equal(b.face.detection.landmarks.length, 5);
    amy = b.identity_id;
  });

  it('enrolling again with the same identity_id adds a sample', async () => {
    const res = await enroll(t.app, person('bbt_amy', 'amy3.png'), { label: 'Amy', identity_id: amy });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().samples, 2);
    assert.equal(res.json().created, false);
    assert.deepEqual(res.json().metadata, { badge: 12, team: 'lab' }, 'metadata kept when not sent again');
    assert.deepEqual((await watchlists(t.app)).default, { name: 'default', size: 1, samples: 2, stale_samples: 0 });
  });

  it('identifies another photo of the enrolled person, with metadata, and emits face_matched + watchlist_alert', async () => {
    events.length = 0;
    const res = await identify(t.app, person('bbt_amy', 'amy2.png'));
    assert.equal(res.statusCode, 200, res.body);
    const { face: f, matches } = res.json();
    assert.equal(f.has_embedding, true);
    assert.equal(matches.length, 1);
    assert.equal(matches[0].identity_id, amy);
    assert.equal(matches[0].label, 'Amy');
    assert.deepEqual(matches[0].metadata, { badge: 12, team: 'lab' });
    assert.ok(matches[0].similarity >= 0.5, `similarity ${matches[0].similarity}`);
    assert.deepEqual(
      events.map((e) => e.type),
      ['face_matched', 'watchlist_alert'],
    );
    for (const e of events) {
      assert.deepEqual(Object.keys(e.data).sort(), ['identity_id', 'label', 'similarity', 'watchlist']);
      assert.deepEqual(e.data, { identity_id: amy, label: 'Amy', similarity: matches[0].similarity, watchlist: 'default' });
      assert.equal(e.camera_id, null);
    }
    // ...and they reach the event history like every other event.
    const recent = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent?event_type=watchlist_alert' })).json() as { id: string; data: unknown }[];
    assert.ok(recent.some((e) => e.id === events[1]!.id));
  });

  it('matches are sorted, thresholded and capped by top_k; the per-watchlist alert threshold applies', async () => {
    for (const [id, file, label] of [
      ['raj', 'raj1.png', 'Raj'],
      ['penny', 'penny1.png', 'Penny'],
      ['howard', 'howard1.png', 'Howard'],
    ] as const) {
      const res = await enroll(t.app, person(`bbt_${id}`, file), { label, identity_id: id, watchlist_name: 'vip' });
      assert.equal(res.statusCode, 200, res.body);
    }
    const all = (await identify(t.app, person('bbt_raj', 'raj2.png'), { watchlist_name: 'vip', threshold: '0', top_k: '10' })).json().matches;
    assert.equal(all.length, 3);
    assert.equal(all[0].identity_id, 'raj');
    const sims = all.map((m: { similarity: number }) => m.similarity);
    assert.deepEqual(
      sims,
      [...sims].sort((a, b) => b - a),
    );
    events.length = 0;
    const two = (await identify(t.app, person('bbt_raj', 'raj2.png'), { watchlist_name: 'vip', threshold: '0', top_k: '2' })).json().matches;
    assert.deepEqual(two, all.slice(0, 2));
    assert.deepEqual(
      events.map((e) => e.type),
      ['face_matched', 'face_matched'],
      'vip alerts only at 0.99',
    );
    const strict = (await identify(t.app, person('bbt_raj', 'raj2.png'), { watchlist_name: 'vip', threshold: '0.4' })).json().matches;
    assert.deepEqual(
      strict.map((m: { identity_id: string }) => m.identity_id),
      ['raj'],
    );
  });

  it('a face that matches nobody emits nothing', async () => {
    events.length = 0;
    const res = await identify(t.app, person('bbt_sheldon', 'sheldon1.png'), { watchlist_name: 'vip' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().matches, []);
    assert.deepEqual(events, []);
  });

  it('an identity_id lives in one watchlist: enrolling it into another is 409', async () => {
    const res = await enroll(t.app, person('bbt_raj', 'raj3.png'), { label: 'Raj', identity_id: 'raj', watchlist_name: 'default' });
    assertErrorShape(res.json(), 409, 'IDENTITY_IN_OTHER_WATCHLIST');
  });

  it('delete removes the identity and all its samples from storage and index; unknown id is 404', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: `/api/v1/watchlist/${amy}` });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { removed: amy, watchlist: 'default', samples: 2 });
    assert.deepEqual((await identify(t.app, person('bbt_amy', 'amy2.png'))).json().matches, []);
    assert.deepEqual((await watchlists(t.app)).default, { name: 'default', size: 0, samples: 0, stale_samples: 0 });
    assert.deepEqual((await watchlists(t.app)).vip, { name: 'vip', size: 3, samples: 3, stale_samples: 0 });
    assert.equal([...t.app.identity.store.samples()].filter((s) => s.key[1] === amy).length, 0);
    const again = await t.app.inject({ method: 'DELETE', url: `/api/v1/watchlist/${amy}` });
    assertErrorShape(again.json(), 404, 'IDENTITY_NOT_FOUND');
  });

  describe('bad input answers the error body', () => {
    const amyImg = () => person('bbt_amy', 'amy4.png');
    const cases: [string, () => ReturnType<typeof enroll>, number, string][] = [
      ['enrol without label', () => enroll(t.app, amyImg()), 400, 'MISSING_FIELD'],
      ['enrol with an empty label', () => enroll(t.app, amyImg(), { label: '   ' }), 400, 'INVALID_FIELD'],
      ['enrol without image', () => t.app.inject({ method: 'POST', url: '/api/v1/watchlist/enroll', ...multipart([{ name: 'label', value: 'x' }]) }), 400, 'MISSING_FIELD'],
      ['enrol a non-image', () => enroll(t.app, Buffer.from('%PDF-1.4 not an image'), { label: 'x' }), 415, 'UNSUPPORTED_IMAGE_TYPE'],
      ['enrol metadata that is not JSON', () => enroll(t.app, amyImg(), { label: 'x', metadata: '{oops' }), 400, 'INVALID_FIELD'],
      ['enrol metadata that is an array', () => enroll(t.app, amyImg(), { label: 'x', metadata: '[1,2]' }), 400, 'INVALID_FIELD'],
      ['enrol a bad identity_id', () => enroll(t.app, amyImg(), { label: 'x', identity_id: '../etc' }), 400, 'INVALID_FIELD'],
      ['enrol a bad watchlist_name', () => enroll(t.app, amyImg(), { label: 'x', watchlist_name: 'a b' }), 400, 'INVALID_FIELD'],
      ['enrol an image without a face', () => enroll(t.app, face('noface', 'opencv_fruits.jpg'), { label: 'x' }), 422, 'NO_FACE'],
      ['identify an unknown watchlist', () => identify(t.app, amyImg(), { watchlist_name: 'nobody' }), 404, 'WATCHLIST_NOT_FOUND'],
      ['identify a non-image', () => identify(t.app, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), 415, 'UNSUPPORTED_IMAGE_TYPE'],
      // GIF is accepted since issue 21: a GIF header with no image behind it is a corrupt image.
      ['identify a truncated GIF', () => identify(t.app, Buffer.from('GIF89a....')), 400, 'INVALID_IMAGE'],
      ['identify a truncated JPEG', () => identify(t.app, person('fr_barack_obama', 'obama.jpg').subarray(0, 2000)), 400, 'INVALID_IMAGE'],
      ['identify with top_k 0', () => identify(t.app, amyImg(), { top_k: '0' }), 400, 'INVALID_FIELD'],
      ['identify with top_k -3', () => identify(t.app, amyImg(), { top_k: '-3' }), 400, 'INVALID_FIELD'],
      ['identify with top_k 2.5', () => identify(t.app, amyImg(), { top_k: '2.5' }), 400, 'INVALID_FIELD'],
      ['identify with threshold -0.1', () => identify(t.app, amyImg(), { threshold: '-0.1' }), 400, 'INVALID_FIELD'],
      ['identify with threshold 1.5', () => identify(t.app, amyImg(), { threshold: '1.5' }), 400, 'INVALID_FIELD'],
      ['identify with threshold abc', () => identify(t.app, amyImg(), { threshold: 'abc' }), 400, 'INVALID_FIELD'],
      ['identify an image without a face', () => identify(t.app, face('noface', 'opencv_board.jpg')), 422, 'NO_FACE'],
      ['identify with a JSON body', () => t.app.inject({ method: 'POST', url: '/api/v1/identify', payload: { image: 'x' } }), 400, 'NOT_MULTIPART'],
    ];
    for (const [name, run, status, code] of cases) {
      it(name, async () => {
        const res = await run();
        assertErrorShape(res.json(), status, code);
      });
    }

    it('enrolment below the quality gate is 422 LOW_QUALITY with the quality reasons; nothing is stored', async () => {
      const before = await watchlists(t.app);
      const dark = await sharp(person('fr_barack_obama', 'obama.jpg')).linear(0.15, 0).jpeg().toBuffer();
      const res = await enroll(t.app, dark, { label: 'Dark' });
      const b = res.json();
      assertErrorShape(b, 422, 'LOW_QUALITY');
      assert.ok(Array.isArray(b.reasons) && b.reasons.length > 0);
      assert.ok(b.reasons.some((r: { code: string }) => r.code === 'TOO_DARK'));
      assert.equal(b.quality.is_acceptable, false);
      assert.deepEqual(await watchlists(t.app), before);
    });
  });

  it('admin reports identity_resolver and face_clusterer loaded and the identity module healthy', async () => {
    const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; module: string; loaded: boolean }[];
    for (const name of ['identity_resolver', 'face_clusterer']) {
      const m = models.find((x) => x.name === name);
      assert.deepEqual({ name: m?.name, module: m?.module, loaded: m?.loaded }, { name, module: 'identity', loaded: true });
    }
    const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
    assert.equal(health.modules.identity, true);
    assert.match(health.details.identity, /3 identities, 3 searchable samples/);
  });
});

describe('identity disabled', () => {
  it('answers 503 MODULE_DISABLED and reports the module and its components as off', async () => {
    const t = await testApp({ identity: { enabled: false } });
    try {
      const res = await identify(t.app, person('bbt_amy', 'amy2.png'));
      assertErrorShape(res.json(), 503, 'MODULE_DISABLED');
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/watchlist' });
      assertErrorShape(list.json(), 503, 'MODULE_DISABLED');
      const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.equal(health.modules.identity, false);
      const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean }[];
      assert.equal(models.find((m) => m.name === 'identity_resolver')?.loaded, false);
    } finally {
      await t.close();
    }
  });
});
