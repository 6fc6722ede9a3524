import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHALLENGE_INSTRUCTIONS, CHALLENGE_TYPES, cryptoRandomIndex, drawChallenges, HEAD_CHALLENGES } from '../../src/modules/liveness/challenges.js';
import { scriptedDraw } from './frames.js';

describe('challenge draw', () => {
  it("has the spec's seven types with the spec's instructions", () => {
    assert.deepEqual(CHALLENGE_TYPES, ['TURN_LEFT', 'TURN_RIGHT', 'LOOK_UP', 'LOOK_DOWN', 'BLINK', 'SMILE', 'OPEN_MOUTH']);
    assert.deepEqual(Object.values(CHALLENGE_INSTRUCTIONS), ['turn head left', 'turn head right', 'look upward', 'look downward', 'blink eyes', 'smile', 'open mouth']);
  });

  it('draws 1..7 distinct challenges with instruction and timeout', () => {
    for (let n = 1; n <= 7; n++) {
      const c = drawChallenges(n, 2.5);
      assert.equal(c.length, n);
      assert.equal(new Set(c.map((x) => x.type)).size, n, 'no repeats');
      for (const x of c) {
        assert.equal(x.instruction, CHALLENGE_INSTRUCTIONS[x.type]);
        assert.equal(x.timeout_seconds, 2.5);
      }
    }
    assert.throws(() => drawChallenges(0, 5), RangeError);
    assert.throws(() => drawChallenges(8, 5), RangeError);
  });

  it('an injected RNG makes the draw deterministic', () => {
    const order = ['SMILE', 'TURN_LEFT', 'BLINK'] as const;
    assert.deepEqual(
      drawChallenges(3, 5, scriptedDraw([...order])).map((c) => c.type),
      order,
    );
    const zeros = drawChallenges(7, 5, () => 0).map((c) => c.type);
    assert.deepEqual(zeros, CHALLENGE_TYPES);
  });

  // Guards issue 22: a session of smile, blink and open mouth needs no head movement, which a
  // warped photo with fresh noise on every frame could perform.
  it('with minHead, every draw holds that many head movements and every type still appears in every position', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const c = drawChallenges(3, 5, cryptoRandomIndex, 1);
      assert.ok(
        c.some((x) => HEAD_CHALLENGES.has(x.type)),
        JSON.stringify(c),
      );
      c.forEach((x, pos) => seen.add(`${pos}:${x.type}`));
    }
    assert.equal(seen.size, 21);
    assert.equal(drawChallenges(3, 5, cryptoRandomIndex, 4).filter((x) => HEAD_CHALLENGES.has(x.type)).length, 3);
  });

  it('the default CSPRNG draw reaches every type in every position (not a fixed order)', () => {
    // 7 x 7 cells; 2000 draws leave a cell empty with probability ~49 * (6/7)^2000, i.e. never.
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) drawChallenges(7, 5, cryptoRandomIndex).forEach((c, pos) => seen.add(`${pos}:${c.type}`));
    assert.equal(seen.size, 49);
  });
});
