/**
 * ByteTrack's (and DeepSORT's) constant-velocity Kalman filter over the box state
 * (cx, cy, a, h, vcx, vcy, va, vh): a = w/h, unit time step per processed frame,
 * noise proportional to the box height. Matrices are plain row-major arrays; the
 * measurement matrix picks the first four components, so its products are written
 * out instead of multiplied.
 */

const N = 8;
const W_POS = 1 / 20;
const W_VEL = 1 / 160;

export type Vec = Float64Array;
/** 8x8, row-major. */
export type Cov = Float64Array;

export interface KalmanState {
  mean: Vec;
  cov: Cov;
}

export function initiate(xyah: readonly [number, number, number, number]): KalmanState {
  const h = xyah[3];
  const mean = new Float64Array(N);
  mean.set(xyah);
  const std = [2 * W_POS * h, 2 * W_POS * h, 1e-2, 2 * W_POS * h, 10 * W_VEL * h, 10 * W_VEL * h, 1e-5, 10 * W_VEL * h];
  const cov = new Float64Array(N * N);
  for (let i = 0; i < N; i++) cov[i * N + i] = std[i]! * std[i]!;
  return { mean, cov };
}

/** x' = F x, P' = F P F^T + Q, with F = [[I, I], [0, I]]. In place. */
export function predict(s: KalmanState): void {
  const { mean, cov } = s;
  const h = mean[3]!;
  for (let i = 0; i < 4; i++) mean[i] = mean[i]! + mean[i + 4]!;
  // P F^T then F (P F^T): F adds row/column i+4 into row/column i for i < 4.
  const p = cov;
  for (let r = 0; r < N; r++) for (let c = 0; c < 4; c++) p[r * N + c] = p[r * N + c]! + p[r * N + c + 4]!;
  for (let r = 0; r < 4; r++) for (let c = 0; c < N; c++) p[r * N + c] = p[r * N + c]! + p[(r + 4) * N + c]!;
  const q = [W_POS * h, W_POS * h, 1e-2, W_POS * h, W_VEL * h, W_VEL * h, 1e-5, W_VEL * h];
  for (let i = 0; i < N; i++) p[i * N + i] = p[i * N + i]! + q[i]! * q[i]!;
}

/** Inverse of a 4x4 symmetric positive-definite matrix (Gauss-Jordan; it is always well conditioned here). */
function invert4(m: Float64Array): Float64Array {
  const a = new Float64Array(32);
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) a[r * 8 + c] = m[r * 4 + c]!;
    a[r * 8 + 4 + r] = 1;
  }
  for (let col = 0; col < 4; col++) {
    let pivot = col;
    for (let r = col + 1; r < 4; r++) if (Math.abs(a[r * 8 + col]!) > Math.abs(a[pivot * 8 + col]!)) pivot = r;
    if (pivot !== col) {
      for (let c = 0; c < 8; c++) {
        const t = a[col * 8 + c]!;
        a[col * 8 + c] = a[pivot * 8 + c]!;
        a[pivot * 8 + c] = t;
      }
    }
    const d = a[col * 8 + col]!;
    if (Math.abs(d) < 1e-12) throw new Error('Kalman innovation covariance is singular');
    for (let c = 0; c < 8; c++) a[col * 8 + c] = a[col * 8 + c]! / d;
    for (let r = 0; r < 4; r++) {
      if (r === col) continue;
      const f = a[r * 8 + col]!;
      if (f === 0) continue;
      for (let c = 0; c < 8; c++) a[r * 8 + c] = a[r * 8 + c]! - f * a[col * 8 + c]!;
    }
  }
  const inv = new Float64Array(16);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) inv[r * 4 + c] = a[r * 8 + 4 + c]!;
  return inv;
}

/** Measurement update with z = (cx, cy, a, h). In place. */
export function update(s: KalmanState, z: readonly [number, number, number, number]): void {
  const { mean, cov } = s;
  const h = mean[3]!;
  const r = [W_POS * h, W_POS * h, 1e-1, W_POS * h];
  // S = H P H^T + R = top-left 4x4 of P plus R.
  const S = new Float64Array(16);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) S[i * 4 + j] = cov[i * N + j]!;
  for (let i = 0; i < 4; i++) S[i * 4 + i] = S[i * 4 + i]! + r[i]! * r[i]!;
  const Si = invert4(S);
  // K = P H^T S^-1: P H^T is the first four columns of P (8x4).
  const K = new Float64Array(N * 4);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < 4; j++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += cov[i * N + k]! * Si[k * 4 + j]!;
      K[i * 4 + j] = v;
    }
  }
  const innov = [z[0] - mean[0]!, z[1] - mean[1]!, z[2] - mean[2]!, z[3] - mean[3]!];
  for (let i = 0; i < N; i++) {
    let v = 0;
    for (let k = 0; k < 4; k++) v += K[i * 4 + k]! * innov[k]!;
    mean[i] = mean[i]! + v;
  }
  // P' = P - K S K^T = P - K (H P): H P is the first four rows of P.
  const HP = cov.slice(0, 4 * N);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += K[i * 4 + k]! * HP[k * N + j]!;
      cov[i * N + j] = cov[i * N + j]! - v;
    }
  }
}
