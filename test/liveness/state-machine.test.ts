import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { drawChallenges, type ChallengeType } from '../../src/modules/liveness/challenges.js';
import { judgeFrame, newProgress, UNREAD_EXPRESSION, type FaceMeasures } from '../../src/modules/liveness/challenge-rules.js';
import { LivenessSession } from '../../src/modules/liveness/session.js';
import { SessionStore } from '../../src/modules/liveness/session-store.js';
import { scriptedDraw } from './frames.js';

// The state machine runs on explicit timestamps; these tests drive it with a hand-moved clock
// and with measures shaped like the frame judge's output (the judge itself runs on real
// frames in liveness-sequences.test.ts).

const S = { turnDegrees: 20, lookDegrees: 15, minActionMs: 150 };
/** Rule tests' clock: each judged frame comes 200 ms after the previous one. */
let clock = T0_RULES();
function T0_RULES(): number {
  return 1_600_000_000_000;
}
const tick = () => (clock += 200);
const NEUTRAL: FaceMeasures = { yaw: 0, pitch: -8, blinkLeft: 0.1, blinkRight: 0.1, smile: 0.05, jawOpen: 0.05 };
const m = (over: Partial<FaceMeasures>): FaceMeasures => ({ ...NEUTRAL, ...over });
/** A frame that performs each challenge from NEUTRAL. */
const ACTION: Record<ChallengeType, FaceMeasures> = {
  TURN_LEFT: m({ yaw: 28 }),
  TURN_RIGHT: m({ yaw: -28 }),
  LOOK_UP: m({ pitch: 12 }),
  LOOK_DOWN: m({ pitch: -28 }),
  BLINK: m({ blinkLeft: 0.85, blinkRight: 0.8 }),
  SMILE: m({ smile: 0.85 }),
  OPEN_MOUTH: m({ jawOpen: 0.6 }),
};

const T0 = 1_700_000_000_000;
function session(types: ChallengeType[], timeout = 5, ttl = 300): LivenessSession {
  return new LivenessSession('s1', drawChallenges(types.length, timeout, scriptedDraw(types)), T0, T0 + ttl * 1000, '127.0.0.1');
}

/** Performs one challenge: neutral frame, action frame (and the reopening frame of a blink). */
function perform(s: LivenessSession, type: ChallengeType, at: number): void {
  s.acceptFrame(at);
  s.judge(NEUTRAL, S, at);
  s.acceptFrame(at + 200);
  s.judge(ACTION[type], S, at + 200);
  if (type === 'BLINK') {
    s.acceptFrame(at + 400);
    s.judge(NEUTRAL, S, at + 400);
  }
}

describe('liveness state machine (spec States table, injected clock)', () => {
  it('(none) -> create -> pending, with the challenge list', () => {
    const s = session(['SMILE', 'TURN_LEFT']);
    assert.equal(s.state, 'pending');
    assert.deepEqual(
      s.challenges.map((c) => c.type),
      ['SMILE', 'TURN_LEFT'],
    );
    assert.equal(s.deadline(), null, 'no challenge timer runs before the first frame');
  });

  it("pending -> first frame -> in_progress; challenge 1's timer starts at that frame", () => {
    const s = session(['SMILE', 'TURN_LEFT']);
    s.acceptFrame(T0 + 60_000);
    const j = s.judge(NEUTRAL, S, T0 + 60_000);
    assert.equal(s.state, 'in_progress');
    assert.equal(s.deadline(), T0 + 65_000);
    assert.deepEqual(s.frameResult('SMILE', j), {
      session_id: 's1',
      challenge_type: 'SMILE',
      passed: false,
      confidence: 0,
      challenges_remaining: 2,
      session_complete: false,
      is_live: null,
      state: 'in_progress',
    });
  });

  it('in_progress -> a challenge passes, others remain -> in_progress, remaining decreases, next timer starts at the passing frame', () => {
    const s = session(['SMILE', 'TURN_LEFT']);
    s.acceptFrame(T0);
    s.judge(NEUTRAL, S, T0);
    s.acceptFrame(T0 + 3000);
    const j = s.judge(ACTION.SMILE, S, T0 + 3000);
    assert.equal(j.passed, true);
    assert.ok(j.confidence >= 0.5);
    const r = s.frameResult('SMILE', j);
    assert.equal(r.state, 'in_progress');
    assert.equal(r.challenges_remaining, 1);
    assert.equal(r.passed, true);
    assert.equal(r.is_live, null, 'is_live is set only when the session ends');
    assert.equal(s.currentChallenge?.type, 'TURN_LEFT');
    assert.equal(s.deadline(), T0 + 3000 + 5000);
  });

  it('in_progress -> final challenge passes -> completed, session_complete and is_live true', () => {
    const s = session(['SMILE', 'TURN_LEFT', 'BLINK']);
    perform(s, 'SMILE', T0);
    perform(s, 'TURN_LEFT', T0 + 1000);
    assert.equal(s.state, 'in_progress');
    s.acceptFrame(T0 + 2000);
    s.judge(NEUTRAL, S, T0 + 2000);
    s.acceptFrame(T0 + 2100);
    assert.equal(s.judge(ACTION.BLINK, S, T0 + 2100).passed, false, 'closed eyes alone are not a blink');
    s.acceptFrame(T0 + 2200);
    const j = s.judge(NEUTRAL, S, T0 + 2200);
    assert.equal(j.confidence, 1);
    const r = s.frameResult('BLINK', j);
    assert.deepEqual(
      { ...r, confidence: 0 },
      {
        session_id: 's1',
        challenge_type: 'BLINK',
        passed: true,
        confidence: 0,
        challenges_remaining: 0,
        session_complete: true,
        is_live: true,
        state: 'completed',
      },
    );
    assert.equal(s.endedAt, T0 + 2200);
    assert.throws(
      () => s.acceptFrame(T0 + 2300),
      (e: Error & { statusCode?: number; details?: { state?: string } }) => e.statusCode === 409 && e.details?.state === 'completed',
    );
  });

  it('in_progress -> challenge timed out -> failed at the deadline (noticed late or by the next frame)', () => {
    const s = session(['TURN_RIGHT', 'SMILE'], 2);
    s.acceptFrame(T0);
    s.judge(NEUTRAL, S, T0);
    assert.equal(s.refresh(T0 + 1999), null, 'one ms before the deadline nothing happens');
    assert.equal(s.refresh(T0 + 2000), 'failed');
    assert.equal(s.state, 'failed');
    assert.equal(s.isLive, false);
    assert.equal(s.failure?.reason, 'challenge_timeout');
    assert.equal(s.failure?.challenge, 'TURN_RIGHT');
    assert.equal(s.endedAt, T0 + 2000);
    assert.equal(s.refresh(T0 + 9000), null, 'ends once');
    assert.throws(() => s.assertActive(), /is failed/);
  });

  it('each challenge has its own timeout, counted from the frame that passed the previous one', () => {
    const s = session(['SMILE', 'OPEN_MOUTH'], 2);
    perform(s, 'SMILE', T0 + 1500); // passes at T0 + 1700, inside challenge 1's 2 s
    assert.equal(s.refresh(T0 + 3600), null, 'challenge 2 started at T0+1700, so T0+3600 is inside its 2 s');
    assert.equal(s.refresh(T0 + 3700), 'failed');
    assert.equal(s.failure?.challenge, 'OPEN_MOUTH');
  });

  it('in_progress -> definitive failure -> failed, and only from in_progress', () => {
    const s = session(['SMILE']);
    s.fail({ reason: 'spoof_detected', challenge: 'SMILE', score: 0.2 }, T0);
    assert.equal(s.state, 'pending', 'a pending session cannot fail (no frame was judged)');
    s.acceptFrame(T0);
    s.fail({ reason: 'face_changed', challenge: 'SMILE', score: 0.01 }, T0 + 10);
    assert.equal(s.state, 'failed');
    assert.equal(s.isLive, false);
    assert.equal(s.failure?.reason, 'face_changed');
    assert.deepEqual(s.frameResult('SMILE', { passed: false, confidence: 0 }), {
      session_id: 's1',
      challenge_type: 'SMILE',
      passed: false,
      confidence: 0,
      challenges_remaining: 1,
      session_complete: false,
      is_live: false,
      state: 'failed',
    });
  });

  for (const from of ['pending', 'in_progress', 'completed', 'failed'] as const) {
    it(`${from} -> session_ttl elapses -> expired`, () => {
      // TTL 30 s under a 60 s challenge timeout, so the TTL is what ends an in_progress session.
      const s = session(['SMILE'], 60, 30);
      if (from !== 'pending') s.acceptFrame(T0);
      if (from === 'completed') perform(s, 'SMILE', T0);
      if (from === 'failed') s.fail({ reason: 'spoof_detected', challenge: 'SMILE', score: 0.1 }, T0 + 1);
      assert.equal(s.state, from);
      assert.equal(s.refresh(T0 + 29_999), null);
      assert.equal(s.refresh(T0 + 30_000), 'expired');
      assert.equal(s.state, 'expired');
      assert.throws(
        () => s.assertActive(),
        (e: Error & { statusCode?: number; code?: string }) => e.statusCode === 409 && e.code === 'SESSION_ENDED' && /expired/.test(e.message),
      );
      if (from === 'completed') assert.equal(s.isLive, true, 'the verdict stays readable');
    });
  }

  it('a timeout noticed only after the TTL still fails the session first (event), then expires it', () => {
    const s = session(['SMILE'], 60, 30);
    s.acceptFrame(T0);
    assert.equal(s.refresh(T0 + 120_000), 'expired', 'the TTL (30 s) comes before the challenge deadline (60 s)');
    const t = session(['SMILE'], 10, 30);
    t.acceptFrame(T0);
    assert.equal(t.refresh(T0 + 120_000), 'failed', 'the deadline (10 s) came before the TTL (30 s)');
    assert.equal(t.state, 'expired');
    assert.equal(t.failure?.reason, 'challenge_timeout');
  });
});

describe('challenge rules', () => {
  it('no pass without a baseline frame first (a session cannot start mid-action)', () => {
    for (const type of ['TURN_LEFT', 'SMILE', 'OPEN_MOUTH', 'LOOK_UP'] as ChallengeType[]) {
      const p = newProgress();
      assert.equal(judgeFrame(type, p, ACTION[type], S, tick()).passed, false, type);
      assert.equal(judgeFrame(type, p, ACTION[type], S, tick()).passed, false, type);
      judgeFrame(type, p, NEUTRAL, S, tick());
      assert.equal(judgeFrame(type, p, ACTION[type], S, tick()).passed, true, type);
    }
  });

  it("left and right are the user's own: TURN_LEFT needs yaw to grow, TURN_RIGHT to fall", () => {
    const p = newProgress();
    judgeFrame('TURN_LEFT', p, NEUTRAL, S, tick());
    assert.equal(judgeFrame('TURN_LEFT', p, ACTION.TURN_RIGHT, S, tick()).passed, false);
    assert.equal(judgeFrame('TURN_LEFT', p, ACTION.TURN_LEFT, S, tick()).passed, true);
  });

  it('a turn is measured from the neutral frame farthest from the asked direction', () => {
    const p = newProgress();
    judgeFrame('TURN_LEFT', p, m({ yaw: -8 }), S, tick());
    judgeFrame('TURN_LEFT', p, m({ yaw: 4 }), S, tick());
    judgeFrame('TURN_LEFT', p, m({ yaw: 10 }), S, tick());
    const j = judgeFrame('TURN_LEFT', p, m({ yaw: 13 }), S, tick());
    assert.equal(j.passed, true, 'from -8 to +13 is 21 degrees');
    assert.equal(j.confidence, 1);
  });

  // A real head swinging from one side to the other can cross the facing-the-camera zone
  // between two frames (the Obama clip at 10 fps): the turn is measured from where it started.
  it('a turn may start from a turned head, but must end turned to the asked side', () => {
    const p = newProgress();
    judgeFrame('TURN_RIGHT', p, m({ yaw: 29 }), S, tick());
    assert.equal(judgeFrame('TURN_RIGHT', p, m({ yaw: 2 }), S, tick()).passed, false, 'back to the camera is not a turn to the right');
    assert.equal(judgeFrame('TURN_RIGHT', p, m({ yaw: -7 }), S, tick()).passed, false, 'not yet turned past the neutral zone');
    assert.equal(judgeFrame('TURN_RIGHT', p, m({ yaw: -13 }), S, tick()).passed, true);
    const q = newProgress();
    judgeFrame('TURN_LEFT', q, m({ yaw: -25 }), S, tick());
    assert.equal(judgeFrame('TURN_LEFT', q, m({ yaw: 14 }), S, tick()).passed, true, 'from -25 straight to +14, no frame between');
  });

  it('a blink is open -> closed -> open; one closed eye is not a blink', () => {
    const p = newProgress();
    judgeFrame('BLINK', p, NEUTRAL, S, tick());
    assert.equal(judgeFrame('BLINK', p, m({ blinkLeft: 0.9, blinkRight: 0.1 }), S, tick()).passed, false);
    assert.equal(judgeFrame('BLINK', p, NEUTRAL, S, tick()).passed, false, 'a wink did not close both eyes');
    assert.equal(judgeFrame('BLINK', p, ACTION.BLINK, S, tick()).passed, false);
    const j = judgeFrame('BLINK', p, NEUTRAL, S, tick());
    assert.equal(j.passed, true);
    assert.equal(j.confidence, 1);
  });

  // Guards issue 22: a graded confidence rising towards the threshold was a gradient to climb.
  it('confidence is coarse: 1 on the frame that passes, 0 on every other, however close', () => {
    const p = newProgress();
    judgeFrame('SMILE', p, NEUTRAL, S, tick());
    for (const smile of [0.2, 0.45, 0.59]) assert.deepEqual(judgeFrame('SMILE', p, m({ smile }), S, tick()), { passed: false, confidence: 0 });
    assert.deepEqual(judgeFrame('SMILE', p, m({ smile: 0.61 }), S, tick()), { passed: true, confidence: 1 });
  });

  // Guards issue 22: a 3-challenge session went from creation to last frame in 86 ms.
  it('an action completed sooner than minActionMs after its neutral frame does not pass (a burst)', () => {
    const p = newProgress();
    const t = tick();
    judgeFrame('TURN_LEFT', p, NEUTRAL, S, t);
    assert.equal(judgeFrame('TURN_LEFT', p, ACTION.TURN_LEFT, S, t + 2).passed, false, '2 ms after the neutral frame');
    assert.equal(judgeFrame('TURN_LEFT', p, ACTION.TURN_LEFT, S, t + 149).passed, false);
    assert.equal(judgeFrame('TURN_LEFT', p, ACTION.TURN_LEFT, S, t + 150).passed, true);
  });
});

describe('session store (injected clock)', () => {
  it('the sweep times out idle sessions, expires them at the TTL and forgets them one TTL later', () => {
    const store = new SessionStore(10_000, 10);
    const s = store.create(drawChallenges(2, 1, scriptedDraw(['SMILE', 'BLINK'])), T0, 'a');
    s.acceptFrame(T0);
    assert.deepEqual(store.sweep(T0 + 999), []);
    assert.deepEqual(
      store.sweep(T0 + 1000).map((e) => e.ending),
      ['failed'],
    );
    assert.deepEqual(
      store.sweep(T0 + 10_000).map((e) => e.ending),
      ['expired'],
    );
    assert.equal(store.get(s.id).state, 'expired', 'an expired session still answers (409 to frames)');
    store.sweep(T0 + 20_000);
    assert.throws(
      () => store.get(s.id),
      (e: Error & { statusCode?: number }) => e.statusCode === 404,
    );
  });

  it('caps the sessions held (503 SESSION_CAPACITY) and 404s unknown ids', () => {
    const store = new SessionStore(10_000, 2);
    store.create(drawChallenges(1, 1), T0, 'a');
    store.create(drawChallenges(1, 1), T0, 'a');
    assert.throws(
      () => store.create(drawChallenges(1, 1), T0, 'a'),
      (e: Error & { statusCode?: number; code?: string }) => e.statusCode === 503 && e.code === 'SESSION_CAPACITY',
    );
    assert.throws(
      () => store.get('nope'),
      (e: Error & { code?: string }) => e.code === 'SESSION_NOT_FOUND',
    );
  });

  it("judges a session's frames one at a time in arrival order, and the sweep leaves a busy session alone", async () => {
    const store = new SessionStore(10_000, 10);
    const s = store.create(drawChallenges(1, 1), T0, 'a');
    s.acceptFrame(T0);
    const order: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = store.exclusive(s.id, async () => {
      await gate;
      order.push(1);
    });
    const second = store.exclusive(s.id, async () => {
      order.push(2);
    });
    assert.deepEqual(store.sweep(T0 + 5000), [], 'busy: the in-flight frame is judged at its arrival time');
    assert.equal(s.state, 'in_progress');
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, [1, 2]);
    assert.deepEqual(
      store.sweep(T0 + 5000).map((e) => e.ending),
      ['failed'],
    );
  });
});

// The service runs the blendshapes model only when a verdict or a baseline reads its scores, and
// the pixel checks of a head movement only when its angle was reached (liveness-service.ts).
describe('work done only where the judgement reads it', () => {
  const pose = (f: FaceMeasures) => ({ yaw: f.yaw, pitch: f.pitch });
  const unread = (f: FaceMeasures): FaceMeasures => ({ ...pose(f), ...UNREAD_EXPRESSION });

  it('an expression challenge reads the expression on every frame; a turn only on the frame that completes it before an expression challenge', () => {
    const s = session(['TURN_LEFT', 'SMILE', 'LOOK_UP', 'TURN_RIGHT']);
    s.acceptFrame(T0);
    assert.equal(s.readsExpression(pose(NEUTRAL), S, T0, true), false, 'a turn frame that does not complete it');
    s.judge(unread(NEUTRAL), S, T0);
    s.acceptFrame(T0 + 200);
    assert.equal(s.readsExpression(pose(ACTION.TURN_LEFT), S, T0 + 200, false), false, 'reached, but did not move like a head: no pass, no baseline');
    assert.equal(s.readsExpression(pose(ACTION.TURN_LEFT), S, T0 + 200, true), true, 'completes the turn: it seeds the smile baseline');
    assert.equal(s.currentChallenge?.type, 'TURN_LEFT', 'asking changed nothing');
    s.judge(ACTION.TURN_LEFT, S, T0 + 200);
    assert.equal(s.currentChallenge?.type, 'SMILE');
    assert.equal(s.readsExpression(pose(NEUTRAL), S, T0 + 400, true), true);
    s.acceptFrame(T0 + 400);
    s.judge(ACTION.SMILE, S, T0 + 400);
    assert.equal(s.currentChallenge?.type, 'LOOK_UP', 'the turn frame seeded the neutral smile baseline');
    assert.equal(s.readsExpression(pose(ACTION.LOOK_UP), S, T0 + 600, true), false, 'a look before a turn never reads it');
  });

  it('an expression left unread neither passes nor seeds an expression challenge', () => {
    for (const type of ['BLINK', 'SMILE', 'OPEN_MOUTH'] as ChallengeType[]) {
      const p = newProgress();
      judgeFrame(type, p, unread(NEUTRAL), S, tick());
      assert.equal(p.baseline, null, `${type}: no baseline`);
      judgeFrame(type, p, NEUTRAL, S, tick());
      assert.equal(judgeFrame(type, p, unread(ACTION[type]), S, tick()).passed, false, `${type}: no pass`);
    }
  });

  it("a head movement's pixel checks are asked for only on a frame that reaches its angle", () => {
    for (const type of ['TURN_LEFT', 'LOOK_UP'] as ChallengeType[]) {
      const p = newProgress();
      let asked = 0;
      const moved = () => (asked++, true);
      judgeFrame(type, p, NEUTRAL, S, tick(), moved);
      judgeFrame(type, p, m({ yaw: 5, pitch: -4 }), S, tick(), moved);
      assert.equal(asked, 0, `${type}: below the angle`);
      assert.equal(judgeFrame(type, p, ACTION[type], S, tick(), moved).passed, true);
      assert.equal(asked, 1, type);
      const q = newProgress();
      judgeFrame(type, q, NEUTRAL, S, tick());
      const j = judgeFrame(type, q, ACTION[type], S, tick(), () => false);
      assert.deepEqual([j.passed, j.flat], [false, true], `${type}: reached but flat`);
    }
  });
});
