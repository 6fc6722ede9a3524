import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { VigilEvent } from '../../src/core/event-types.js';
import type { ChallengeType } from '../../src/modules/liveness/challenges.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';
import { clipFrames, mirror, scriptedDraw } from './frames.js';

// Real frames through the real pipeline (SCRFD, MobileFaceNet, MiniFASNet, MediaPipe landmarks
// and blendshapes). Lin-Manuel Miranda in the Hamilton clip, by decode index, as measured
// (docs/accuracy.md, "Active liveness"):
const F = {
  frontal: 150, // yaw -2, pitch -15, smile 0, jawOpen 0.06
  right: 133, // turned to his right: yaw -30
  chinDown: 98, // pitch -18
  // pitch -14: the clip's own look down from chinUp, 0.5 s later. Not frame 96, 2 s before
  // chinUp: its nose and bridge patches match chinUp's at a correlation of 0.5 (0.9 for the
  // clip's consecutive look frames), and the look's depth parallax check fails that pair.
  chinDown2: 172,
  chinUp: 158, // pitch +3
  level: 180, // pitch +1, yaw -3
  smile: 90, // mouthSmile 0.75
  mouthOpen: 195, // jawOpen 0.44
  profile: 34, // Alex Lacamoire in profile, close up: the landmark model finds no face in the ROI
} as const;

let t: TestApp;
const frames = new Map<string, Buffer>();
const events: VigilEvent[] = [];

before(async () => {
  // min_challenges 1: these tests judge one challenge at a time.
  t = await testApp({ liveness: { abuse_max_failures: 0, min_challenges: 1, min_head_challenges: 0 } });
  // A hand-moved clock: no challenge times out however slow the box is, unless a test moves
  // it; frame() moves it 200 ms per frame, a camera client's pace (a burst is rejected).
  let now = Date.UTC(2026, 0, 1);
  t.app.liveness.deps.clock = () => now;
  (t as TestApp & { advance: (ms: number) => void }).advance = (ms) => (now += ms);
  t.app.vigil.bus.subscribe('test', (e) => {
    events.push(e);
  });
  const clip = clipFrames(Object.values(F));
  for (const [name, n] of Object.entries(F)) frames.set(name, clip.get(n)!);
  // A head turned to the user's right, mirrored, is a head turned to their left.
  frames.set('mirroredFrontal', await mirror(frames.get('frontal')!));
  frames.set('left', await mirror(frames.get('right')!));
  frames.set('obama', readFileSync(testdata('faces/identities/fr_barack_obama/obama.jpg')));
  frames.set('printAttack', readFileSync(testdata('faces/pad/silentface_image_F1.jpg')));
  frames.set('screenAttack', readFileSync(testdata('faces/pad/doubango_spoof.jpg')));
});
after(async () => {
  await t.close();
});

async function session(order: ChallengeType[]): Promise<string> {
  t.app.liveness.deps.random = scriptedDraw(order);
  const r = await t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions?num_challenges=${order.length}` });
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(
    r.json().challenges.map((c: { type: string }) => c.type),
    order,
  );
  return r.json().session_id as string;
}

async function frame(id: string, name: string) {
  (t as TestApp & { advance: (ms: number) => void }).advance(200);
  const body = multipart([{ name: 'image', file: frames.get(name)!, filename: `${name}.png`, contentType: 'image/png' }]);
  return t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions/${id}/frame`, payload: body.payload, headers: body.headers });
}

interface Step {
  frame: string;
  passes?: boolean;
}

/** Sends the frames in order; asserts each 200 and whether it passed; returns the last result. */
async function run(id: string, steps: Step[]) {
  let last: Record<string, unknown> = {};
  for (const s of steps) {
    const r = await frame(id, s.frame);
    assert.equal(r.statusCode, 200, `${s.frame}: ${r.body}`);
    last = r.json();
    assert.equal(last.passed, s.passes ?? false, `${s.frame}: ${r.body}`);
  }
  return last;
}

const eventsOf = (id: string) => events.filter((e) => (e.data as { session_id?: string }).session_id === id);

describe('active liveness on real frames', () => {
  it('a correct sequence passes: turn right, smile, open mouth -> completed, is_live, liveness_passed', async () => {
    const id = await session(['TURN_RIGHT', 'SMILE', 'OPEN_MOUTH']);
    const steps: Step[] = [{ frame: 'frontal' }, { frame: 'right', passes: true }, { frame: 'frontal' }, { frame: 'smile', passes: true }, { frame: 'mouthOpen', passes: true }];
    const last = await run(id, steps);
    assert.deepEqual(
      { ...last, confidence: 0 },
      {
        session_id: id,
        challenge_type: 'OPEN_MOUTH',
        passed: true,
        confidence: 0,
        challenges_remaining: 0,
        session_complete: true,
        is_live: true,
        state: 'completed',
      },
    );
    const ev = eventsOf(id);
    assert.deepEqual(
      ev.map((e) => e.type),
      ['liveness_passed'],
    );
    assert.deepEqual((ev[0]!.data as { passed_challenges: string[] }).passed_challenges, ['TURN_RIGHT', 'SMILE', 'OPEN_MOUTH']);
    assert.equal((ev[0]!.data as { reason: unknown }).reason, null);
    const again = await frame(id, 'frontal');
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().state, 'completed');
  });

  // A camera does not flip its picture mid-session (a mirrored frame after a plain one fails as
  // capture_discontinuity), so the user's left turn is its own session of mirrored frames.
  it("four challenges (looking up and down, the user's right turn, a smile) pass; the left turn passes on mirrored frames", async () => {
    const id = await session(['LOOK_UP', 'LOOK_DOWN', 'TURN_RIGHT', 'SMILE']);
    const last = await run(id, [
      { frame: 'chinDown' },
      { frame: 'chinUp', passes: true },
      { frame: 'level' },
      { frame: 'chinDown2', passes: true },
      { frame: 'right', passes: true },
      { frame: 'frontal' },
      { frame: 'smile', passes: true },
    ]);
    assert.equal(last.state, 'completed');
    assert.equal(last.is_live, true);
    const left = await session(['TURN_LEFT']);
    const done = await run(left, [{ frame: 'mirroredFrontal' }, { frame: 'left', passes: true }]);
    assert.equal(done.state, 'completed');
  });

  it('a wrong answer does not pass: asked to turn left, the user turns right, then smiles; the challenge times out', async () => {
    const id = await session(['TURN_LEFT', 'SMILE']);
    await run(id, [{ frame: 'frontal' }, { frame: 'right' }, { frame: 'frontal' }, { frame: 'smile' }]);
    const info = (await t.app.inject({ method: 'GET', url: `/api/v1/liveness/sessions/${id}` })).json();
    assert.equal(info.state, 'in_progress');
    assert.equal(info.challenges_remaining, 2);
    assert.equal(info.current_challenge, 'TURN_LEFT');
    (t as TestApp & { advance: (ms: number) => void }).advance(5000);
    const r = await frame(id, 'left');
    assert.equal(r.statusCode, 409, 'the left turn came after the 5 s deadline');
    assert.equal(r.json().state, 'failed');
    assert.equal((eventsOf(id)[0]?.data as { reason: string }).reason, 'challenge_timeout');
  });

  it('opening the mouth when asked to smile, or the reverse, does not pass', async () => {
    const a = await session(['SMILE']);
    await run(a, [{ frame: 'frontal' }, { frame: 'mouthOpen' }, { frame: 'right' }]);
    const b = await session(['OPEN_MOUTH']);
    await run(b, [{ frame: 'frontal' }, { frame: 'smile' }, { frame: 'chinUp' }]);
  });

  it('a different person mid-session fails the session definitively (face_changed)', async () => {
    const id = await session(['TURN_RIGHT', 'SMILE']);
    await run(id, [{ frame: 'frontal' }, { frame: 'right', passes: true }]);
    const r = await frame(id, 'obama');
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().state, 'failed');
    assert.equal(r.json().is_live, false);
    const data = eventsOf(id)[0]!.data as { reason: string; score: number; passed_challenges: string[]; failed_challenge: string };
    assert.equal(data.reason, 'face_changed');
    assert.ok(data.score < t.config.liveness.same_person_threshold, `similarity ${data.score}`);
    assert.deepEqual(data.passed_challenges, ['TURN_RIGHT']);
    assert.equal(data.failed_challenge, 'SMILE');
  });

  it('a printed photo held up mid-session fails on passive liveness (spoof_detected)', async () => {
    const id = await session(['SMILE', 'TURN_RIGHT']);
    await run(id, [{ frame: 'frontal' }]);
    const r = await frame(id, 'printAttack');
    assert.equal(r.json().state, 'failed');
    assert.equal((eventsOf(id)[0]!.data as { reason: string }).reason, 'spoof_detected');
  });

  it('a face shown on a screen (pad/doubango_spoof) fails on its first frame', async () => {
    const id = await session(['BLINK']);
    const r = await frame(id, 'screenAttack');
    assert.equal(r.json().state, 'failed');
    assert.equal((eventsOf(id)[0]!.data as { reason: string }).reason, 'spoof_detected');
  });

  it('a face the landmark model cannot read (a profile) is 422 FACE_NOT_MEASURABLE and judges nothing', async () => {
    const id = await session(['SMILE']);
    const r = await frame(id, 'profile');
    assert.equal(r.statusCode, 422, r.body);
    assertErrorShape(r.json(), 422, 'FACE_NOT_MEASURABLE');
    assert.equal(r.json().state, 'in_progress');
  });
});
