/**
 * dlib's metric on the unit sphere. dlib trained its ResNet recognizer with a pair loss on the
 * Euclidean distance between raw descriptors (same person below 0.6), so a descriptor's length
 * carries part of what it learned; the cosine of L2-normalised descriptors drops it. On the
 * shared faces the Euclidean distance separates people better than that cosine: on the 55
 * identity photos (YuNet) 97.9% of genuine pairs above every impostor against 94.7%, EER 0.1%
 * against 1.0%; over 20 random splits of the people, each half alone, 18 of 40 halves with
 * every genuine pair above every impostor against 5 (docs/accuracy.md).
 *
 * Galleries, the 1:N index and the clusterer compare unit embeddings by their dot product, so
 * the raw descriptor d is lifted onto the unit sphere by inverse stereographic projection
 * around a centre c, with x = (d - c) / R:
 *
 *   lift(d) = [2x, 1 - |x|^2] / (1 + |x|^2),   1 - lift(a).lift(b) = 2 |x_a - x_b|^2 / ((1 + |x_a|^2)(1 + |x_b|^2)).
 *
 * The cosine of two lifted descriptors falls with their Euclidean distance, exactly up to the
 * factors (1 + |x|^2): with R = 4 and descriptors 0.5-0.7 from the centre they stay within
 * 1.015-1.03, so the ranking is dlib's own to about 1.5%. The centre only sets that distortion
 * and the spread of the lifted vectors (the int8 scan of large galleries reads differences
 * between them): it is the mean descriptor of the shared faces, refitted and checked on held-out
 * people by bench/eval-far.ts. The 129 coordinates are padded with zeros to 144, the index's
 * multiple of 16.
 */

/** Mean raw descriptor over the 84 identified faces of the shared images (YuNet, dense chip; bench/eval-far.ts prints it). */
export const DLIB_CENTRE: readonly number[] = [
  -0.0732, 0.0906, 0.0481, -0.028, -0.0896, 0.0019, -0.0313, -0.0663, 0.1488, -0.073, 0.1914, -0.0223, -0.2422, -0.0057, -0.0271, 0.1265, -0.1488, -0.1094, -0.1283, -0.088, 0.0077, 0.0495, 0.0252,
  0.053, -0.134, -0.3093, -0.0583, -0.1126, 0.0373, -0.104, -0.0192, 0.0429, -0.1585, -0.0418, 0.0429, 0.0623, -0.0413, -0.0622, 0.193, 0.0332, -0.1544, 0.0202, 0.0371, 0.277, 0.1889, 0.0405, 0.0332,
  -0.0874, 0.1189, -0.2595, 0.0686, 0.1468, 0.0978, 0.0775, 0.0936, -0.1712, 0.014, 0.1299, -0.1843, 0.0893, 0.0557, -0.0518, -0.0298, -0.0647, 0.1939, 0.0957, -0.1201, -0.1304, 0.1556, -0.1493,
  -0.0412, 0.0847, -0.1079, -0.1822, -0.2618, 0.0435, 0.4034, 0.1598, -0.1704, -0.0004, -0.0743, -0.0285, 0.0423, 0.0599, -0.0836, -0.0412, -0.0709, 0.0392, 0.1902, -0.0043, -0.0294, 0.2105, -0.0025,
  -0.0148, 0.0159, 0.0477, -0.1354, -0.0146, -0.12, -0.0246, 0.0108, -0.0869, 0.0071, 0.0914, -0.1882, 0.148, -0.0281, -0.0417, -0.0165, 0.0095, -0.109, -0.004, 0.1821, -0.2677, 0.1901, 0.1803,
  0.0452, 0.1348, 0.0522, 0.0605, 0.0014, -0.0177, -0.156, -0.0871, 0.0358, -0.0319, 0.0254, 0.0236,
];

/** Lift radius, in descriptor units (descriptors lie 0.5-0.7 from the centre). */
export const DLIB_LIFT_RADIUS = 4;

/** Dimension of a lifted embedding: 128 + 1 on the sphere, padded to a multiple of 16. */
export const DLIB_LIFTED_DIM = 144;

/** The unit vector whose dot products follow dlib's Euclidean metric (see above). */
export function liftDescriptor(raw: ArrayLike<number>, centre: ArrayLike<number> = DLIB_CENTRE, radius = DLIB_LIFT_RADIUS): Float32Array {
  const n = raw.length;
  if (centre.length !== n) throw new Error(`descriptor is ${n}-D, the lift's centre ${centre.length}-D`);
  const x = new Float64Array(n);
  let q = 0;
  for (let i = 0; i < n; i++) {
    x[i] = (raw[i]! - centre[i]!) / radius;
    q += x[i]! * x[i]!;
  }
  const out = new Float32Array(Math.ceil((n + 1) / 16) * 16);
  for (let i = 0; i < n; i++) out[i] = (2 * x[i]!) / (1 + q);
  out[n] = (1 - q) / (1 + q);
  return out;
}

/** The raw descriptor back from a lifted embedding (the projection is invertible), for refitting the centre. */
export function unliftDescriptor(lifted: ArrayLike<number>, n = DLIB_CENTRE.length, centre: ArrayLike<number> = DLIB_CENTRE, radius = DLIB_LIFT_RADIUS): Float64Array {
  const w = 1 + lifted[n]!;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = centre[i]! + (radius * lifted[i]!) / w;
  return out;
}
