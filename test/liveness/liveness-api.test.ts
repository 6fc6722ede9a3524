import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { VigilEvent } from '../../src/core/event-types.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';
import { clipFrames } from './frames.js';

const FRONTAL = 150; // Lin-Manuel Miranda facing the camera
let t: TestApp;
let frontal: Buffer;
const events: VigilEvent[] = [];
/** Events of one session (the background sweep may end other tests' sessions meanwhile). */
const eventsOf = (id: string) => events.filter((e) => (e.data as { session_id?: string }).session_id === id);
let now = Date.UTC(2026, 0, 1);

function frameBody(file: Buffer, name = 'image') {
  return multipart([{ name, file, filename: 'frame.png', contentType: 'image/png' }]);
}

async function create(query = '') {
  const r = await t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions${query}` });
  assert.equal(r.statusCode, 200, r.body);
  return r.json() as { session_id: string; challenges: { type: string; instruction: string; timeout_seconds: number }[] };
}

async function sendFrame(id: string, file: Buffer, name = 'image') {
  const body = frameBody(file, name);
  return t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions/${id}/frame`, payload: body.payload, headers: body.headers });
}

const get = (id: string) => t.app.inject({ method: 'GET', url: `/api/v1/liveness/sessions/${id}` });

before(async () => {
  t = await testApp({ liveness: { abuse_max_failures: 0 } });
  t.app.liveness.deps.clock = () => now;
  t.app.vigil.bus.subscribe('test', (e) => {
    events.push(e);
  });
  frontal = clipFrames([FRONTAL]).get(FRONTAL)!;
});
after(async () => {
  await t.close();
});

describe('POST /api/v1/liveness/sessions', () => {
  it('defaults: 3 distinct challenges of 5.0 s with the spec instructions', async () => {
    const s = await create();
    assert.match(s.session_id, /^[0-9a-f-]{36}$/);
    assert.equal(s.challenges.length, 3);
    assert.equal(new Set(s.challenges.map((c) => c.type)).size, 3);
    for (const c of s.challenges) {
      assert.equal(c.timeout_seconds, 5);
      assert.ok(c.instruction.length > 0);
    }
  });

  it('takes num_challenges and timeout_seconds as query parameters', async () => {
    const s = await create('?num_challenges=7&timeout_seconds=2.5');
    assert.equal(s.challenges.length, 7);
    assert.equal(new Set(s.challenges.map((c) => c.type)).size, 7);
    assert.ok(s.challenges.every((c) => c.timeout_seconds === 2.5));
  });

  // Guards issue 22: the client chose the strength (num_challenges=1, timeout_seconds up to 60).
  it('the server sets the floor: fewer than min_challenges is raised, more than max_timeout_seconds lowered', async () => {
    const s = await create('?num_challenges=1&timeout_seconds=60');
    assert.equal(s.challenges.length, t.config.liveness.min_challenges);
    assert.equal(t.config.liveness.min_challenges, 3);
    assert.ok(s.challenges.every((c) => c.timeout_seconds === t.config.liveness.max_timeout_seconds));
  });

  // Guards issue 22: smile, blink and open mouth need no head movement, which a warped photo
  // with fresh noise on every frame could perform.
  it('every session holds at least min_head_challenges head movements: an expressions-only draw is drawn again', async () => {
    assert.equal(t.config.liveness.min_head_challenges, 1);
    const picks = [5, 3, 4]; // SMILE, BLINK, OPEN_MOUTH, then the index 0 each time
    const saved = t.app.liveness.deps.random;
    t.app.liveness.deps.random = () => picks.shift() ?? 0;
    try {
      const c = (await create('')).challenges.map((x) => x.type);
      assert.deepEqual(c, ['TURN_LEFT', 'TURN_RIGHT', 'LOOK_UP']);
    } finally {
      t.app.liveness.deps.random = saved;
    }
  });

  it('rejects out-of-range or malformed query values with 400', async () => {
    for (const q of [
      'num_challenges=0',
      'num_challenges=8',
      'num_challenges=abc',
      'num_challenges=2.5',
      'timeout_seconds=0',
      'timeout_seconds=-1',
      'timeout_seconds=61',
      'timeout_seconds=soon',
      'color=red',
    ]) {
      const r = await t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions?${q}` });
      assert.equal(r.statusCode, 400, q);
      assertErrorShape(r.json(), 400, 'VALIDATION_ERROR');
    }
  });
});

describe('GET and DELETE /api/v1/liveness/sessions/{id}', () => {
  it('GET returns session_id, challenges, state and the timing fields', async () => {
    const s = await create('?num_challenges=4');
    const r = await get(s.session_id);
    assert.equal(r.statusCode, 200);
    const info = r.json();
    assert.equal(info.session_id, s.session_id);
    assert.deepEqual(info.challenges, s.challenges);
    assert.equal(info.state, 'pending');
    assert.equal(info.current_challenge, s.challenges[0]!.type);
    assert.equal(info.challenges_remaining, 4);
    assert.deepEqual(info.passed_challenges, []);
    assert.equal(info.is_live, null);
    assert.equal(info.liveness_score, null, 'no score while the session runs');
    assert.equal(info.failure_reason, null);
    assert.equal(info.created_at, new Date(now).toISOString());
    assert.equal(info.expires_at, new Date(now + 300_000).toISOString());
    assert.equal(info.challenge_deadline, null, 'no timer before the first frame');
  });

  it('DELETE answers {cancelled: id}; the session is gone afterwards', async () => {
    const s = await create();
    const r = await t.app.inject({ method: 'DELETE', url: `/api/v1/liveness/sessions/${s.session_id}` });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { cancelled: s.session_id });
    assertErrorShape((await get(s.session_id)).json(), 404, 'SESSION_NOT_FOUND');
  });

  it('an unknown session is 404 on GET, DELETE and frame', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    assertErrorShape((await get(id)).json(), 404, 'SESSION_NOT_FOUND');
    assertErrorShape((await t.app.inject({ method: 'DELETE', url: `/api/v1/liveness/sessions/${id}` })).json(), 404, 'SESSION_NOT_FOUND');
    const r = await sendFrame(id, frontal);
    assert.equal(r.statusCode, 404);
    assertErrorShape(r.json(), 404, 'SESSION_NOT_FOUND');
  });
});

describe('POST /api/v1/liveness/sessions/{id}/frame', () => {
  it('bad uploads answer 4xx and leave the session pending', async () => {
    const s = await create();
    const cases: [Buffer, string, number, string][] = [
      [frontal, 'picture', 400, 'MISSING_FIELD'],
      [Buffer.from('not an image at all'), 'image', 415, 'UNSUPPORTED_IMAGE_TYPE'],
      [frontal.subarray(0, 2000), 'image', 400, 'INVALID_IMAGE'],
    ];
    for (const [file, field, status, code] of cases) {
      const r = await sendFrame(s.session_id, file, field);
      assert.equal(r.statusCode, status, r.body);
      assertErrorShape(r.json(), status, code);
    }
    const notMultipart = await t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions/${s.session_id}/frame`, payload: { image: 'x' } });
    assert.ok(notMultipart.statusCode === 400 || notMultipart.statusCode === 415, notMultipart.body);
    assert.equal((await get(s.session_id)).json().state, 'pending');
  });

  it('a session cancelled while its frame is being judged: the frame answers 404, no event', async () => {
    const s = await create();
    const pending = sendFrame(s.session_id, frontal);
    while (!t.app.liveness.store.busy(s.session_id)) await new Promise((r) => setImmediate(r));
    const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/liveness/sessions/${s.session_id}` });
    assert.equal(del.statusCode, 200);
    const r = await pending;
    assert.equal(r.statusCode, 404, r.body);
    assertErrorShape(r.json(), 404, 'SESSION_NOT_FOUND');
    assert.deepEqual(eventsOf(s.session_id), []);
  });

  it('no face or two faces is a 422 per-frame outcome; the session goes on', async () => {
    const s = await create();
    const none = await sendFrame(s.session_id, readFileSync(testdata('faces/noface/opencv_fruits.jpg')));
    assert.equal(none.statusCode, 422);
    assertErrorShape(none.json(), 422, 'NO_FACE');
    assert.equal(none.json().state, 'in_progress', 'the first frame starts the session even without a face');
    now += 200; // a camera's pace: frames closer than liveness.min_frame_interval_ms are rejected
    const two = await sendFrame(s.session_id, readFileSync(testdata('faces/multi/fr_two_people.jpg')));
    assert.equal(two.statusCode, 422);
    assertErrorShape(two.json(), 422, 'MULTIPLE_FACES');
    const info = (await get(s.session_id)).json();
    assert.equal(info.state, 'in_progress');
    assert.equal(info.frames_received, 2);
    assert.equal(info.challenge_started_at, new Date(now - 200).toISOString());
  });

  it("a judged frame returns exactly the spec's eight fields", async () => {
    const s = await create('?num_challenges=4');
    const r = await sendFrame(s.session_id, frontal);
    assert.equal(r.statusCode, 200, r.body);
    const f = r.json();
    assert.deepEqual(Object.keys(f).sort(), ['challenge_type', 'challenges_remaining', 'confidence', 'is_live', 'passed', 'session_complete', 'session_id', 'state']);
    assert.equal(f.session_id, s.session_id);
    assert.equal(f.challenge_type, s.challenges[0]!.type);
    assert.equal(f.passed, false, 'a neutral first frame cannot pass anything');
    assert.equal(f.confidence, 0);
    assert.equal(f.challenges_remaining, 4);
    assert.equal(f.session_complete, false);
    assert.equal(f.is_live, null);
    assert.equal(f.state, 'in_progress');
    assert.match(String(r.headers['server-timing']), /face;dur=.*measure_model;dur=/);
  });

  it('a challenge timeout fails the session (GET, event, then 409 naming the state)', async () => {
    const s = await create('?num_challenges=2&timeout_seconds=2');
    assert.equal((await sendFrame(s.session_id, frontal)).statusCode, 200);
    now += 1999;
    assert.equal((await get(s.session_id)).json().state, 'in_progress');
    now += 1;
    const info = (await get(s.session_id)).json();
    assert.equal(info.state, 'failed');
    assert.equal(info.failure_reason, 'challenge_timeout');
    assert.equal(info.is_live, false);
    const failed = eventsOf(s.session_id).filter((e) => e.type === 'liveness_failed');
    assert.equal(failed.length, 1);
    assert.deepEqual(failed[0]!.data, {
      session_id: s.session_id,
      challenges: s.challenges.map((c) => c.type),
      passed_challenges: [],
      reason: 'challenge_timeout',
      failed_challenge: s.challenges[0]!.type,
      score: null,
      frames: 1,
      duration_seconds: 2,
      client_address: '127.0.0.1',
    });
    assert.equal(failed[0]!.source, 'liveness');
    const r = await sendFrame(s.session_id, frontal);
    assert.equal(r.statusCode, 409);
    assertErrorShape(r.json(), 409, 'SESSION_ENDED');
    assert.equal(r.json().state, 'failed');
    assert.match(r.json().message, /is failed/);
  });

  it('the sweep times out a session nobody sends frames to', async () => {
    const s = await create('?num_challenges=1&timeout_seconds=1');
    await sendFrame(s.session_id, frontal);
    now += 1500;
    t.app.liveness.sweep();
    assert.deepEqual(
      eventsOf(s.session_id).map((e) => [e.type, (e.data as { reason: string }).reason]),
      [['liveness_failed', 'challenge_timeout']],
    );
  });

  it('session_ttl expiry: state expired, 409 to frames, then forgotten (404) one TTL later', async () => {
    const s = await create();
    now += 300_000;
    const info = (await get(s.session_id)).json();
    assert.equal(info.state, 'expired');
    const r = await sendFrame(s.session_id, frontal);
    assert.equal(r.statusCode, 409);
    assert.equal(r.json().state, 'expired');
    now += 300_000;
    t.app.liveness.sweep();
    assertErrorShape((await get(s.session_id)).json(), 404, 'SESSION_NOT_FOUND');
  });

  it('a printed-photo attack (pad/silentface_image_F1) fails on passive liveness; later frames get 409 failed', async () => {
    const s = await create();
    const r = await sendFrame(s.session_id, readFileSync(testdata('faces/pad/silentface_image_F1.jpg')));
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().state, 'failed');
    assert.equal(r.json().is_live, false);
    assert.equal(r.json().passed, false);
    assert.equal((await get(s.session_id)).json().failure_reason, 'spoof_detected');
    const ev = eventsOf(s.session_id).find((e) => e.type === 'liveness_failed');
    assert.equal((ev?.data as { reason: string }).reason, 'spoof_detected');
    assert.ok(((ev?.data as { score: number }).score ?? 1) < 0.5, 'the passive score is carried');
    const again = await sendFrame(s.session_id, frontal);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().state, 'failed');
  });
});

describe('admin reporting', () => {
  it('/admin/models reports active_liveness loaded with both model files; health reports liveness ok', async () => {
    const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean; models?: { name: string }[] }[];
    const al = models.find((m) => m.name === 'active_liveness');
    assert.equal(al?.loaded, true);
    assert.deepEqual(al?.models?.map((m) => m.name).sort(), ['face_blendshapes', 'face_landmarks_v2_478']);
    const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
    assert.equal(health.modules.liveness, true, health.details.liveness);
  });

  it('GET /admin/config reports the liveness settings', async () => {
    const cfg = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/config' })).json();
    assert.equal(cfg.liveness.session_ttl, 300);
    assert.equal(cfg.liveness.num_challenges, 3);
    assert.equal(cfg.liveness.timeout_seconds, 5);
  });
});
