import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FaceClusterer } from '../../src/modules/identity/face-clusterer.js';
import { resolveSamples } from '../../src/modules/identity/identity-resolver.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { enroll, face, identify, person } from './helpers.js';
import { near, randomUnit, seeded } from './vectors.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, j) => s + v * b[j]!, 0);

describe('face_clusterer (unit)', () => {
  it('groups sightings by centroid similarity, keeps the best samples and evicts the least recently seen', () => {
    const rand = seeded(5);
    const c = new FaceClusterer({ threshold: 0.6, maxClusters: 3, maxSamples: 2, similarity: cosine });
    const a = randomUnit(64, rand);
    const b = randomUnit(64, rand);
    const sight = (q: number) => ({ watchlist: 'default', cameraId: null, quality: q, face: { q } });
    const first = c.observe(near(a, 0.9, rand), sight(10));
    assert.equal(first.created, true);
    assert.equal(c.observe(near(a, 0.9, rand), sight(90)).cluster_id, first.cluster_id);
    assert.equal(c.observe(near(a, 0.9, rand), sight(50)).cluster_id, first.cluster_id);
    const other = c.observe(near(b, 0.9, rand), sight(20));
    assert.equal(other.created, true);
    const list = c.list();
    assert.deepEqual(
      list.map((x) => x.size),
      [3, 1],
    );
    assert.deepEqual(list[0]!.face, { q: 90 }, 'the best-quality face represents the cluster');
    assert.equal(c.samples(first.cluster_id)!.length, 2);
    c.observe(randomUnit(64, rand), sight(1));
    c.observe(randomUnit(64, rand), sight(1));
    assert.equal(c.count, 3);
    assert.equal(c.get(first.cluster_id), undefined, 'least recently seen cluster evicted');
  });
});

describe('identity_resolver (unit)', () => {
  const s = (entries: [string, number][], quality: number | null = 80) => ({ scores: new Map(entries), quality });
  it('one bad frame does not flip the decision', () => {
    const r = resolveSamples(
      [
        s([
          ['a', 0.7],
          ['b', 0.2],
        ]),
        s([
          ['a', 0.65],
          ['b', 0.3],
        ]),
        s(
          [
            ['a', 0.1],
            ['b', 0.45],
          ],
          20,
        ),
      ],
      0.4,
    );
    assert.equal(r.decision?.identity_id, 'a');
    assert.equal(r.decision?.votes, 2);
  });
  it('an unknown person or a split track gives no decision', () => {
    assert.equal(resolveSamples([s([['a', 0.3]]), s([['a', 0.35]])], 0.4).decision, null);
    assert.equal(
      resolveSamples(
        [
          s([
            ['a', 0.9],
            ['b', 0.1],
          ]),
          s([
            ['a', 0.1],
            ['b', 0.9],
          ]),
        ],
        0.4,
      ).decision,
      null,
    );
  });
});

describe('clusters, promotion and track decisions over HTTP', () => {
  let t: TestApp;
  before(async () => {
    // The spec's default 0.6 stands for a FAR of 1e-10, which these recognizers reach only near
    // raw cosine 0.9 on the tail-fitted calibration (docs/face.md): joining three different
    // photos of one person needs an operating point like 0.42 (raw ~0.59), as operators set it.
    t = await testApp({ face: { enable_liveness: false }, identity: { cluster_threshold: 0.42 } });
  });
  after(async () => t.close());

  let clusterId = '';
  it('faces that match nobody form provisional clusters (same person together)', async () => {
    for (const f of ['sheldon1.png', 'sheldon2.png', 'sheldon3.png']) assert.equal((await identify(t.app, person('bbt_sheldon', f))).statusCode, 200);
    assert.equal((await identify(t.app, person('fr_joe_biden', 'biden.jpg'))).statusCode, 200);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/identity/clusters' });
    const { clusters } = res.json();
    assert.ok(clusters.length >= 2, JSON.stringify(clusters.map((c: { size: number }) => c.size)));
    assert.equal(clusters[0].size, 3, 'the three Sheldon photos share a cluster');
    assert.deepEqual(clusters[0].watchlists, ['default']);
    assert.equal(clusters[0].face.has_embedding, true);
    clusterId = clusters[0].cluster_id;
    const big = (await t.app.inject({ method: 'GET', url: '/api/v1/identity/clusters?min_size=2' })).json().clusters;
    assert.deepEqual(
      big.map((c: { cluster_id: string }) => c.cluster_id),
      [clusterId],
    );
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/identity/clusters/${clusterId}` })).json().size, 3);
  });

  it('promoting a cluster enrols its samples as an identity that identify then finds', async () => {
    // An identity_id that lives in another watchlist is refused, and the cluster is kept.
    assert.equal((await enroll(t.app, person('bbt_raj', 'raj1.png'), { label: 'Raj', identity_id: 'raj-else', watchlist_name: 'elsewhere' })).statusCode, 200);
    const clash = await t.app.inject({ method: 'POST', url: `/api/v1/identity/clusters/${clusterId}/promote`, payload: { label: 'Sheldon', identity_id: 'raj-else' } });
    assertErrorShape(clash.json(), 409, 'IDENTITY_IN_OTHER_WATCHLIST');
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/identity/clusters/${clusterId}` })).statusCode, 200);
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/identity/clusters/${clusterId}/promote`, payload: { label: 'Sheldon', identity_id: 'sheldon', metadata: { from: 'cluster' } } });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      identity_id: 'sheldon',
      label: 'Sheldon',
      watchlist: 'default',
      metadata: { from: 'cluster' },
      samples: 3,
      created: true,
      cluster_id: clusterId,
      promoted_samples: 3,
    });
    const m = (await identify(t.app, person('bbt_sheldon', 'sheldon4.png'))).json().matches;
    assert.equal(m[0]?.identity_id, 'sheldon');
    assertErrorShape((await t.app.inject({ method: 'GET', url: `/api/v1/identity/clusters/${clusterId}` })).json(), 404, 'CLUSTER_NOT_FOUND');
    assertErrorShape((await t.app.inject({ method: 'POST', url: `/api/v1/identity/clusters/${clusterId}/promote`, payload: { label: 'x' } })).json(), 404, 'CLUSTER_NOT_FOUND');
    assertErrorShape((await t.app.inject({ method: 'POST', url: '/api/v1/identity/clusters/x/promote', payload: {} })).json(), 400, 'VALIDATION_ERROR');
    assertErrorShape((await t.app.inject({ method: 'DELETE', url: '/api/v1/identity/clusters/nope' })).json(), 404, 'CLUSTER_NOT_FOUND');
  });

  it('/identify/track turns several photos into one decision and one face_matched', async () => {
    assert.equal((await enroll(t.app, person('bbt_howard', 'howard1.png'), { label: 'Howard', identity_id: 'howard' })).statusCode, 200);
    const events: string[] = [];
    t.app.vigil.bus.subscribe('track-test', (e) => {
      if (e.type === 'face_matched') events.push((e.data as { identity_id: string }).identity_id);
    });
    const track = (files: Buffer[]) => t.app.inject({ method: 'POST', url: '/api/v1/identify/track', ...multipart(files.map((file, i) => ({ name: `image${i + 1}`, file }))) });
    const res = await track([person('bbt_howard', 'howard2.png'), person('bbt_howard', 'howard3.png'), person('bbt_howard', 'howard4.png')]);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.samples, 3);
    assert.equal(body.faces.length, 3);
    assert.equal(body.decision?.identity_id, 'howard');
    assert.equal(body.decision?.label, 'Howard');
    assert.ok(body.decision.votes >= 2);
    assert.deepEqual(events, ['howard']);
    const unknown = (await track([person('bbt_stuart', 'stuart1.png'), person('bbt_stuart', 'stuart2.png')])).json();
    assert.equal(unknown.decision, null);
    assertErrorShape((await track([])).json(), 400, 'MISSING_FIELD');
    assertErrorShape((await track([person('bbt_howard', 'howard2.png'), face('noface', 'opencv_home.jpg')])).json(), 422, 'NO_FACE');
    t.app.vigil.bus.unsubscribeOwner('track-test');
  });
});
