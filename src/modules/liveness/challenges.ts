import { randomInt } from 'node:crypto';

/** The spec's seven challenge types, with the spec's instruction text. */
export const CHALLENGE_INSTRUCTIONS = {
  TURN_LEFT: 'turn head left',
  TURN_RIGHT: 'turn head right',
  LOOK_UP: 'look upward',
  LOOK_DOWN: 'look downward',
  BLINK: 'blink eyes',
  SMILE: 'smile',
  OPEN_MOUTH: 'open mouth',
} as const;

export type ChallengeType = keyof typeof CHALLENGE_INSTRUCTIONS;
export const CHALLENGE_TYPES = Object.keys(CHALLENGE_INSTRUCTIONS) as ChallengeType[];

export interface Challenge {
  type: ChallengeType;
  instruction: string;
  timeout_seconds: number;
}

/** A uniform integer in [0, max): crypto.randomInt in the daemon; tests inject a seeded one. */
export type RandomIndex = (max: number) => number;

export const cryptoRandomIndex: RandomIndex = (max) => randomInt(max);

/** Challenges that need the head to move (judged on the head's outline as well as its landmarks). */
export const HEAD_CHALLENGES: ReadonlySet<ChallengeType> = new Set(['TURN_LEFT', 'TURN_RIGHT', 'LOOK_UP', 'LOOK_DOWN']);

/**
 * `count` distinct challenge types in random order (a partial Fisher-Yates shuffle driven by
 * the CSPRNG), so a client cannot predict the next session's challenges from earlier ones; with
 * at least `minHead` head movements (or `count`, if smaller). Draws failing that are drawn again,
 * which keeps every admissible set and order equally likely.
 */
export function drawChallenges(count: number, timeoutSeconds: number, random: RandomIndex = cryptoRandomIndex, minHead = 0): Challenge[] {
  const need = Math.min(minHead, count);
  for (;;) {
    const drawn = drawOnce(count, timeoutSeconds, random);
    if (drawn.filter((c) => HEAD_CHALLENGES.has(c.type)).length >= need) return drawn;
  }
}

function drawOnce(count: number, timeoutSeconds: number, random: RandomIndex): Challenge[] {
  if (!Number.isInteger(count) || count < 1 || count > CHALLENGE_TYPES.length) {
    throw new RangeError(`count must be an integer in 1..${CHALLENGE_TYPES.length}`);
  }
  const pool = [...CHALLENGE_TYPES];
  const out: Challenge[] = [];
  for (let i = 0; i < count; i++) {
    const j = i + random(pool.length - i);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    const type = pool[i]!;
    out.push({ type, instruction: CHALLENGE_INSTRUCTIONS[type], timeout_seconds: timeoutSeconds });
  }
  return out;
}
