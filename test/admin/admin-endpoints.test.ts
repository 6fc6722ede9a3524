import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';

const COMPONENTS = [
  'face_detector',
  'face_recognizer',
  'liveness',
  'demographics',
  'document_detector',
  'person_detector',
  'person_tracker',
  'active_liveness',
  'event_bus',
  'camera_manager',
  'identity_resolver',
  'face_clusterer',
];
const MODULES = ['face', 'document', 'liveness', 'person', 'video', 'events', 'identity'];

describe('admin endpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  it('health has {healthy, modules, details} with the seven module keys', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(typeof body.healthy, 'boolean');
    assert.deepEqual(Object.keys(body.modules).sort(), [...MODULES].sort());
    assert.deepEqual(Object.keys(body.details).sort(), [...MODULES].sort());
    for (const m of MODULES) {
      assert.equal(typeof body.modules[m], 'boolean');
      assert.equal(typeof body.details[m], 'string');
    }
    // video is off by default: reported false, and not counted against `healthy`.
    assert.equal(body.modules.video, false);
    assert.match(body.details.video, /disabled/);
    const enabledOk = MODULES.filter((m) => m !== 'video').every((m) => body.modules[m]);
    assert.equal(body.healthy, enabledOk);
  });

  it('models lists the twelve names with module and loaded, and the shared models load', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' });
    assert.equal(res.statusCode, 200);
    const list = res.json() as { name: string; module: string; loaded: boolean; reason?: string; models?: { provider?: string; license: string }[] }[];
    assert.deepEqual(
      list.map((m) => m.name),
      COMPONENTS,
    );
    for (const m of list) {
      assert.ok(MODULES.includes(m.module), m.module);
      assert.equal(typeof m.loaded, 'boolean');
      if (!m.loaded) assert.ok(m.reason, `${m.name} not loaded and says no reason`);
    }
    const byName = new Map(list.map((m) => [m.name, m]));
    for (const name of ['face_detector', 'face_recognizer', 'liveness', 'person_detector', 'active_liveness']) {
      const c = byName.get(name)!;
      assert.equal(c.loaded, true, `${name}: ${c.reason}`);
      for (const f of c.models ?? []) {
        assert.equal(f.provider, 'cpu');
        assert.ok(f.license.length > 0);
      }
    }
  });

  it('config returns exactly the seven module keys with the spec defaults', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/config' });
    assert.equal(res.statusCode, 200);
    const c = res.json();
    assert.deepEqual(Object.keys(c).sort(), [...MODULES].sort());
    assert.equal(c.face.det_thresh, 0.5);
    assert.equal(c.face.max_faces, 10);
    assert.equal(c.face.quality_gate, 30.0);
    assert.deepEqual(c.face.det_size, [640, 640]);
    assert.equal(typeof c.face.ctx_id, 'number');
    assert.equal(typeof c.face.models_dir, 'string');
    assert.equal(c.liveness.session_ttl, 300);
    assert.equal(c.liveness.num_challenges, 3);
    assert.equal(c.liveness.timeout_seconds, 5.0);
    assert.equal(c.person.confidence_threshold, 0.5);
    assert.equal(c.events.max_workers, 4);
    assert.equal(c.events.history_size, 1000);
    assert.equal(c.identity.cluster_threshold, 0.6);
    assert.equal(c.video.enabled, false);
    assert.equal(c.video.max_fps, 30.0);
    assert.equal(c.video.track_faces, true);
    assert.equal(c.video.buffer_size, 10);
    for (const k of ['enabled', 'enable_ocr', 'enable_mrz', 'enable_face_extraction']) assert.equal(typeof c.document[k], 'boolean');
    assert.equal(typeof c.identity.watchlist_dir, 'string');
    assert.equal(typeof c.events.webhooks_enabled, 'boolean');
  });

  it('unknown routes answer a JSON 404 with the error shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(Object.keys(res.json()).sort(), ['code', 'error', 'message', 'statusCode']);
    assert.equal(res.json().code, 'ROUTE_NOT_FOUND');
  });

  it('serves the OpenAPI document at /docs/json', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.0.3');
    assert.ok(doc.paths['/api/v1/admin/health']);
  });
});
