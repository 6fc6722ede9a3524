// Age and gender for detected faces with HSE FaceRes (converted from the TFJS model shipped in
// @vladmandic/human; chosen by bench/eval-demographics.ts, figures in docs/accuracy.md).
import type { RgbImage } from '../../core/image-decode.js';
import { floatFeed, type WorkerModel } from '../../runtime/inference-worker.js';
import { cropRegion, faceRegion } from './face-crop.js';
import type { Box, Point } from './face-geometry.js';

/** Manifest name of the demographics model. */
export const DEMOGRAPHICS_MODEL = 'face_attr_hse_faceres';

/** The spec's demographics object: age an integer, gender M or F (both estimates). */
export interface Demographics {
  age: number;
  gender: 'M' | 'F';
}

export interface FaceGeometry {
  box: Box;
  /** The detector's 5 landmarks (eyes first); used to level the crop. */
  kps?: readonly Point[];
}

/** Input side of the model; the crop is 1.2 x the box, eyes levelled (the best-margin variant in the evaluation). */
const SIZE = 224;
export const CROP_SCALE = 1.2;
export const CROP_LEVEL = true;
const AGE_BINS = 100;

/** Expected value of the 100-bin age distribution (the model's authors estimate age this way). */
export function ageFromDistribution(p: Float32Array, offset: number): number {
  let age = 0;
  let mass = 0;
  for (let i = 0; i < AGE_BINS; i++) {
    age += i * p[offset + i]!;
    mass += p[offset + i]!;
  }
  return Math.round(age / mass);
}

/** Crops every face and runs them as one batch; results in the order of `faces`. */
export async function estimateDemographics(model: WorkerModel, img: RgbImage, faces: FaceGeometry[]): Promise<Demographics[]> {
  if (faces.length === 0) return [];
  const pixels = SIZE * SIZE * 3;
  const batch = new Float32Array(faces.length * pixels);
  // NHWC RGB 0..255, as the model's TFJS original is fed (a 224x224 warp is a few ms of JS per face).
  faces.forEach((f, k) => batch.set(cropRegion(img, faceRegion(f.box, f.kps, CROP_SCALE, CROP_LEVEL), SIZE), k * pixels));
  const out = await model.run([floatFeed(model.inputNames[0]!, batch, [faces.length, SIZE, SIZE, 3])]);
  const gender = out['gender_pred/Sigmoid']?.data as Float32Array | undefined;
  const age = out['age_pred/Softmax']?.data as Float32Array | undefined;
  if (!gender || !age) throw new Error(`${DEMOGRAPHICS_MODEL}: outputs gender_pred/Sigmoid and age_pred/Softmax expected, got ${Object.keys(out).join(', ')}`);
  // Sigmoid > 0.5 is male in the original (Human reads <= 0.5 as female).
  return faces.map((_, k) => ({ age: ageFromDistribution(age, k * AGE_BINS), gender: gender[k]! > 0.5 ? 'M' : 'F' }));
}
