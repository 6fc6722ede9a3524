/** Deterministic random numbers (mulberry32) so a failing case can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random unit vector (roughly Gaussian components). */
export function randomUnit(dim: number, rand: () => number = Math.random): Float32Array {
  const v = new Float32Array(dim);
  let s = 0;
  for (let j = 0; j < dim; j++) {
    const u = rand() + rand() + rand() - 1.5;
    v[j] = u;
    s += u * u;
  }
  const k = 1 / Math.sqrt(s);
  for (let j = 0; j < dim; j++) v[j]! *= k;
  return v;
}

/** A unit vector at cosine about `cos` from `base` (a second photo of the same person, in spirit). */
export function near(base: Float32Array, cos: number, rand: () => number = Math.random): Float32Array {
  const noise = randomUnit(base.length, rand);
  const out = new Float32Array(base.length);
  const w = Math.sqrt(1 - cos * cos);
  let s = 0;
  for (let j = 0; j < base.length; j++) {
    out[j] = cos * base[j]! + w * noise[j]!;
    s += out[j]! * out[j]!;
  }
  const k = 1 / Math.sqrt(s);
  for (let j = 0; j < base.length; j++) out[j]! *= k;
  return out;
}
