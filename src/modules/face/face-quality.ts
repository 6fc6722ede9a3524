import type { Static } from 'typebox';
import type { RgbImage } from '../../core/image-decode.js';
import type { Point } from './face-geometry.js';
import { headPose } from './head-pose.js';
import type { QualityReasonSchema, QualitySchema } from './schema.js';
import { luma as lumaAt } from '../../core/luma.js';

/** One reason a face is not acceptable: stable code, words, the measured value and the limit it missed. */
export type QualityReason = Static<typeof QualityReasonSchema>;

/** The spec's quality object. */
export type Quality = Static<typeof QualitySchema>;

/** Limits behind the reasons (documented in docs/face.md). */
export const QUALITY_LIMITS = {
  minFaceSize: 40,
  minSharpness: 0.25,
  minBrightness: 0.2,
  maxBrightness: 0.85,
  minContrast: 0.1,
  maxYaw: 30,
  maxPitch: 25,
  maxRoll: 30,
} as const;

/** Laplacian variance that maps to sharpness 1.0 (a crisp 112x112 aligned face sits around it). */
const SHARPNESS_REF = 500;

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
const ramp = (v: number, lo: number, hi: number) => clamp01((v - lo) / (hi - lo));

/**
 * Photometric measures on the aligned 112x112 face, inner region (cheeks to chin, little
 * background): brightness = mean luma / 255, contrast = luma std / 127.5, sharpness =
 * variance of the 4-neighbour Laplacian of luma / SHARPNESS_REF, each clipped to 0..1.
 */
export function photometrics(aligned: RgbImage): { brightness: number; contrast: number; sharpness: number } {
  const { data, width } = aligned;
  const x0 = 24,
    x1 = 88,
    y0 = 28,
    y1 = 104;
  const w = x1 - x0,
    h = y1 - y0;
  const luma = new Float32Array(w * h);
  let sum = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = ((y + y0) * width + (x + x0)) * 3;
      const l = lumaAt(data, p);
      luma[y * w + x] = l;
      sum += l;
    }
  }
  const n = w * h;
  const mean = sum / n;
  let varSum = 0;
  for (let i = 0; i < n; i++) varSum += (luma[i]! - mean) ** 2;
  let lapSum = 0,
    lapSq = 0,
    m = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const lap = luma[i - 1]! + luma[i + 1]! + luma[i - w]! + luma[i + w]! - 4 * luma[i]!;
      lapSum += lap;
      lapSq += lap * lap;
      m++;
    }
  }
  const lapVar = lapSq / m - (lapSum / m) ** 2;
  return { brightness: mean / 255, contrast: clamp01(Math.sqrt(varSum / n) / 127.5), sharpness: clamp01(lapVar / SHARPNESS_REF) };
}

export interface QualityInput {
  aligned: RgbImage;
  faceSize: number;
  kps: readonly Point[];
  /** face.quality_gate: the overall score (0-100) at or above which a face is acceptable. */
  gate: number;
}

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

/**
 * The spec's quality object. Each factor becomes a 0..1 sub-score and overall_score is
 * their product x 100: one factor exactly at its limit scores 33, so the default gate of 30
 * passes a face no worse than that and fails one clearly past any limit or with several
 * borderline factors. is_acceptable = overall_score >= quality_gate; when not acceptable,
 * `reasons` lists every factor outside its limit and the score itself.
 */
export function assessQuality(input: QualityInput): Quality {
  const L = QUALITY_LIMITS;
  const { brightness, contrast, sharpness } = photometrics(input.aligned);
  const pose = headPose(input.kps);
  const poseExcess = Math.max(Math.abs(pose.yaw) / L.maxYaw, Math.abs(pose.pitch) / L.maxPitch, Math.abs(pose.roll) / L.maxRoll);
  const head_pose_ok = poseExcess <= 1;
  // Each factor as m = measured / limit in its good direction (1 at the limit); its
  // sub-score ramps from 0 at half the limit through 1/3 at the limit to 1 at twice it.
  const sub = (m: number) => ramp(m, 0.5, 2);
  const scores = [
    sub(input.faceSize / L.minFaceSize),
    sub(sharpness / L.minSharpness),
    Math.min(sub(brightness / L.minBrightness), sub((1 - brightness) / (1 - L.maxBrightness))),
    sub(contrast / L.minContrast),
    sub(1 / Math.max(1e-6, poseExcess)),
  ];
  const overall = 100 * scores.reduce((a, b) => a * b, 1);
  const is_acceptable = overall >= input.gate;
  const reasons: QualityReason[] = [];
  if (!is_acceptable) {
    if (input.faceSize < L.minFaceSize) reasons.push({ code: 'FACE_TOO_SMALL', message: 'face is too small for reliable recognition', value: round(input.faceSize, 1), threshold: L.minFaceSize });
    if (sharpness < L.minSharpness) reasons.push({ code: 'BLURRY', message: 'face is blurred or out of focus', value: round(sharpness), threshold: L.minSharpness });
    if (brightness < L.minBrightness) reasons.push({ code: 'TOO_DARK', message: 'face is underexposed', value: round(brightness), threshold: L.minBrightness });
    if (brightness > L.maxBrightness) reasons.push({ code: 'TOO_BRIGHT', message: 'face is overexposed', value: round(brightness), threshold: L.maxBrightness });
    if (contrast < L.minContrast) reasons.push({ code: 'LOW_CONTRAST', message: 'face has too little contrast', value: round(contrast), threshold: L.minContrast });
    if (!head_pose_ok) {
      const worst = Math.abs(pose.yaw) / L.maxYaw >= Math.abs(pose.pitch) / L.maxPitch ? (['yaw', pose.yaw, L.maxYaw] as const) : (['pitch', pose.pitch, L.maxPitch] as const);
      const [axis, value, limit] = Math.abs(pose.roll) / L.maxRoll > Math.abs(worst[1]) / worst[2] ? (['roll', pose.roll, L.maxRoll] as const) : worst;
      reasons.push({ code: 'HEAD_POSE', message: `head is turned too far (${axis} ${round(value, 1)} degrees)`, value: round(Math.abs(value), 1), threshold: limit });
    }
    reasons.push({ code: 'LOW_QUALITY_SCORE', message: `overall quality score is below quality_gate`, value: round(overall, 1), threshold: input.gate });
  }
  return {
    overall_score: round(overall, 1),
    face_size_px: round(input.faceSize, 1),
    sharpness: round(sharpness),
    brightness: round(brightness),
    contrast: round(contrast),
    head_pose_ok,
    is_acceptable,
    reasons,
  };
}
