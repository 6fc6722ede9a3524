/**
 * How the head turned between two frames by the landmark model's account: the reference frame's
 * 3-D landmarks (x, y and the model's depth z) rotated, scaled and shifted to fit the other
 * frame's 2-D landmarks (scaled orthographic projection, least squares over the upper face).
 *
 * The fit alone does not tell a head from a picture: the landmark model places its points where
 * a turned face's would be whatever the pixels, so the points of a photo squeezed about the nose
 * fit a rotation as closely as a real head's do (bench/eval-head-rigidity.ts prints both
 * residuals). The rotation is what depth-parallax.ts checks against the pixels.
 */

/** Eye corners (outer, MediaPipe topology) and the nose's lower edge, which bound the upper face. */
const EYE_OUTER_A = 33;
const EYE_OUTER_B = 263;
const SUBNASALE = 2;
/** The irises (468 on) move in the eye, not with the head. */
const IRIS_START = 468;

/**
 * The points above the nose's lower edge, read off the reference frame: forehead, brows, eyes,
 * nose and cheeks move with the skull; the lips and jaw move when the user talks. "Above" is
 * across the reference's eye line, so a tilted head keeps the same points.
 */
export function upperFace(points: Float32Array): number[] {
  const ax = points[EYE_OUTER_A * 3]!;
  const ay = points[EYE_OUTER_A * 3 + 1]!;
  const bx = points[EYE_OUTER_B * 3]!;
  const by = points[EYE_OUTER_B * 3 + 1]!;
  const len = Math.max(1e-6, Math.hypot(bx - ax, by - ay));
  const nx = -(by - ay) / len;
  const ny = (bx - ax) / len;
  const down = (i: number) => (points[i * 3]! - ax) * nx + (points[i * 3 + 1]! - ay) * ny;
  // The normal points down the face whichever way round the eye corners lie.
  const sign = down(SUBNASALE) < 0 ? -1 : 1;
  const limit = sign * down(SUBNASALE);
  const out: number[] = [];
  for (let i = 0; i < IRIS_START; i++) if (sign * down(i) <= limit) out.push(i);
  return out;
}

/** Drops the depth of 3-D points (x y z interleaved) to 2-D (x y interleaved). */
export function imagePlane(points: Float32Array): Float32Array {
  const n = points.length / 3;
  const out = new Float32Array(n * 2);
  for (let i = 0; i < n; i++) {
    out[i * 2] = points[i * 3]!;
    out[i * 2 + 1] = points[i * 3 + 1]!;
  }
  return out;
}

export interface RigidFit {
  /** Root-mean-square 2-D residual over the fitted points, in reference face sizes (see below). */
  residual: number;
  /** Fitted rotation from the reference to this frame, degrees, in head-pose.ts's sign conventions. */
  yaw: number;
  pitch: number;
  roll: number;
  /** Scale of the projection (this frame's face size over the reference's). */
  scale: number;
  /** The fitted rotation, rows in image axes (x right, y down, z away from the camera). */
  rotation: Mat3;
}

type Vec3 = [number, number, number];
export type Mat3 = [Vec3, Vec3, Vec3];

const deg = (r: number) => (r * 180) / Math.PI;

function matMul(a: Mat3, b: Mat3): Mat3 {
  const r = (i: number, j: number) => a[i]![0] * b[0]![j]! + a[i]![1] * b[1]![j]! + a[i]![2] * b[2]![j]!;
  return [
    [r(0, 0), r(0, 1), r(0, 2)],
    [r(1, 0), r(1, 1), r(1, 2)],
    [r(2, 0), r(2, 1), r(2, 2)],
  ];
}

/** Rotation by the vector w (axis times angle in radians), Rodrigues' formula. */
function rotation(w: Vec3): Mat3 {
  const t = Math.hypot(w[0], w[1], w[2]);
  if (t < 1e-12) {
    return [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ];
  }
  const [x, y, z] = [w[0] / t, w[1] / t, w[2] / t];
  const c = Math.cos(t);
  const s = Math.sin(t);
  const C = 1 - c;
  return [
    [c + x * x * C, x * y * C - z * s, x * z * C + y * s],
    [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
    [z * x * C - y * s, z * y * C + x * s, c + z * z * C],
  ];
}

/** Solves the 4x4 system A x = b (Gaussian elimination with partial pivoting); null when singular. */
function solve4(A: number[][], b: number[]): number[] | null {
  const n = 4;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    if (Math.abs(M[p]![c]!) < 1e-12) return null;
    [M[c], M[p]] = [M[p]!, M[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = M[r]![c]! / M[c]![c]!;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= M[r]![k]! * x[k]!;
    x[r] = s / M[r]![r]!;
  }
  return x;
}

/**
 * Fits `ref` (3-D points, x y z interleaved, image pixels, z away from the camera) to `cur`
 * (2-D points, x y interleaved, image pixels) over the point indices `use`: cur ~ s * (R ref)_xy
 * + t, by Gauss-Newton on the rotation and scale (the translation is the centroids' difference).
 * The residual is divided by the reference's face size (root-mean-square distance of its fitted
 * points from their centroid) times the scale, so it reads the same at any face size.
 */
export function fitRigid(ref: Float32Array, cur: Float32Array, use: readonly number[]): RigidFit {
  const n = use.length;
  const P: Vec3[] = [];
  const Q: [number, number][] = [];
  let pc: Vec3 = [0, 0, 0];
  let qc: [number, number] = [0, 0];
  for (const i of use) {
    const p: Vec3 = [ref[i * 3]!, ref[i * 3 + 1]!, ref[i * 3 + 2]!];
    const q: [number, number] = [cur[i * 2]!, cur[i * 2 + 1]!];
    P.push(p);
    Q.push(q);
    pc = [pc[0] + p[0] / n, pc[1] + p[1] / n, pc[2] + p[2] / n];
    qc = [qc[0] + q[0] / n, qc[1] + q[1] / n];
  }
  let refSize = 0;
  let curSize = 0;
  for (let k = 0; k < n; k++) {
    P[k] = [P[k]![0] - pc[0], P[k]![1] - pc[1], P[k]![2] - pc[2]];
    Q[k] = [Q[k]![0] - qc[0], Q[k]![1] - qc[1]];
    refSize += P[k]![0] ** 2 + P[k]![1] ** 2;
    curSize += Q[k]![0] ** 2 + Q[k]![1] ** 2;
  }
  refSize = Math.sqrt(refSize / n);
  curSize = Math.sqrt(curSize / n);
  let R = rotation([0, 0, 0]);
  let s = curSize / Math.max(1e-9, refSize);
  for (let iter = 0; iter < 20; iter++) {
    // Normal equations of the residual's linearisation in (w, ds), R <- rot(w) R.
    const A = [0, 1, 2, 3].map(() => [0, 0, 0, 0]);
    const g = [0, 0, 0, 0];
    for (let k = 0; k < n; k++) {
      const p = P[k]!;
      const X = R[0][0] * p[0] + R[0][1] * p[1] + R[0][2] * p[2];
      const Y = R[1][0] * p[0] + R[1][1] * p[1] + R[1][2] * p[2];
      const Z = R[2][0] * p[0] + R[2][1] * p[1] + R[2][2] * p[2];
      const rx = Q[k]![0] - s * X;
      const ry = Q[k]![1] - s * Y;
      // d(s X)/d(w, s) and d(s Y)/d(w, s): w x (X, Y, Z) = (wy Z - wz Y, wz X - wx Z, ...).
      const jx = [0, s * Z, -s * Y, X];
      const jy = [-s * Z, 0, s * X, Y];
      for (let a = 0; a < 4; a++) {
        g[a]! += jx[a]! * rx + jy[a]! * ry;
        for (let b = 0; b < 4; b++) A[a]![b]! += jx[a]! * jx[b]! + jy[a]! * jy[b]!;
      }
    }
    const d = solve4(A, g);
    if (!d) break;
    R = matMul(rotation([d[0]!, d[1]!, d[2]!]), R);
    s += d[3]!;
    if (Math.hypot(d[0]!, d[1]!, d[2]!) < 1e-7 && Math.abs(d[3]!) < 1e-7 * s) break;
  }
  let e = 0;
  for (let k = 0; k < n; k++) {
    const p = P[k]!;
    const X = R[0][0] * p[0] + R[0][1] * p[1] + R[0][2] * p[2];
    const Y = R[1][0] * p[0] + R[1][1] * p[1] + R[1][2] * p[2];
    e += (Q[k]![0] - s * X) ** 2 + (Q[k]![1] - s * Y) ** 2;
  }
  return {
    residual: Math.sqrt(e / n) / Math.max(1e-9, s * refSize),
    // Angles of the rotation R = Ry(yaw) Rx(pitch) Rz(roll) in image axes (x right, y down, z
    // away from the camera): the user's own left turn moves the nose (in front, z < 0) towards
    // image right, which is a negative rotation about y here, so yaw is negated to match
    // head-pose.ts; likewise chin forward (up) is a negative rotation about x.
    yaw: -deg(Math.atan2(R[0][2], R[2][2])),
    pitch: -deg(Math.asin(Math.max(-1, Math.min(1, -R[1][2])))),
    roll: deg(Math.atan2(R[1][0], R[1][1])),
    scale: s,
    rotation: R,
  };
}
