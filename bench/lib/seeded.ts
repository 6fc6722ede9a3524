import { randomInt } from 'node:crypto';

/** A seed that changes every run (printed by the caller so the run can be replayed). */
export function freshSeed(): number {
  return randomInt(1, 2 ** 31 - 1);
}

/** mulberry32: a small, fast, well-mixed 32-bit PRNG; the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
