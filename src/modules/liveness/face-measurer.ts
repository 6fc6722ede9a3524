import type { RgbImage } from '../../core/image-decode.js';
import type { FaceService } from '../face/face-service.js';
import { BlendshapeModel } from './blendshapes.js';
import type { Expression, FaceMeasures } from './challenge-rules.js';
import { FaceLandmarker, LANDMARK_COUNT, LANDMARK_INPUT, type DenseLandmarks } from './face-landmarker.js';
import type { FaceBox } from './face-roi.js';
import { headPose } from './head-pose.js';

export const LANDMARK_MODEL = 'face_landmarks_v2_478';
export const BLENDSHAPE_MODEL = 'face_blendshapes';

/** Below this face-presence probability the landmark model did not find a face in the crop. */
export const MIN_PRESENCE = 0.5;
/**
 * Largest mean distance, in eye distances, between the dense model's iris centres and the
 * detector's eye points. Two independent models agreeing is the check that the landmarks
 * are on the face: measured frames fit within 0.16; profiles and faces under ~70 px that the
 * landmark model misreads fit 0.25 to 30.
 */
export const MAX_EYE_FIT = 0.25;

export interface MeasuredFace {
  measures: FaceMeasures;
  presence: number;
  eyeFit: number;
  /** False when the landmarks cannot be trusted (presence or eye fit out of bounds). */
  measurable: boolean;
  /** Run time of both models in the inference pool, ms. */
  modelMs: number;
  /**
   * The 478 landmarks in image pixels, x y z interleaved (z: the model's depth, scaled like x,
   * away from the camera): what the rigid head check fits across frames (rigid-pose.ts).
   */
  points: Float32Array;
}

/**
 * One face's landmarks read, its expression not yet: the head pose is all a turn or look is
 * judged on, so the blendshapes model runs only when `expression()` is first asked for (an
 * expression challenge, or a turn that completes and seeds an expression challenge's baseline).
 */
export interface LandmarkReading extends Omit<MeasuredFace, 'measures' | 'modelMs'> {
  pose: Pick<FaceMeasures, 'yaw' | 'pitch'>;
  /** The landmark model's run in the inference pool, ms. */
  landmarkMs: number;
  /** The blendshapes on these landmarks, run once on the first call; `ms` is that run's time. */
  expression(): Promise<{ expression: Expression; ms: number }>;
}

const IRIS_A = 468;
const IRIS_B = 473;

/** Mean iris-to-eye-point distance over the eye distance, pairing the irises either way round. */
function eyeFit(image: Float32Array, face: FaceBox): number {
  const [e1, e2] = face.landmarks;
  if (!e1 || !e2) return Infinity;
  const ed = Math.max(1e-6, Math.hypot(e2[0] - e1[0], e2[1] - e1[1]));
  const a: [number, number] = [image[IRIS_A * 2]!, image[IRIS_A * 2 + 1]!];
  const b: [number, number] = [image[IRIS_B * 2]!, image[IRIS_B * 2 + 1]!];
  const d = (p: [number, number], q: [number, number]) => Math.hypot(p[0] - q[0], p[1] - q[1]);
  return Math.min(d(a, e1) + d(b, e2), d(b, e1) + d(a, e2)) / 2 / ed;
}

/** The landmarks in image pixels with depth: x and y as the model placed them in the image, z scaled from the crop. */
function imagePoints(lm: DenseLandmarks): Float32Array {
  const out = new Float32Array(LANDMARK_COUNT * 3);
  const zScale = lm.roi.side / LANDMARK_INPUT;
  for (let i = 0; i < LANDMARK_COUNT; i++) {
    out[i * 3] = lm.image[i * 2]!;
    out[i * 3 + 1] = lm.image[i * 2 + 1]!;
    out[i * 3 + 2] = lm.crop[i * 3 + 2]! * zScale;
  }
  return out;
}

/**
 * Reads head pose and expression off one detected face: the dense landmark model on the
 * detector's ROI, then the blendshapes model on those landmarks. Both run in the model
 * registry's inference pool (loaded by the liveness module's contract, core/module.ts),
 * on whichever worker thread is free, so a frame never holds the event loop for a model run;
 * the liveness service starts the landmarks beside the face's embedding and passive liveness.
 */
export class FaceMeasurer {
  constructor(private readonly faces: FaceService) {}

  /** Landmarks and blendshapes, both run: every measure of the face. */
  async measure(img: RgbImage, face: FaceBox): Promise<MeasuredFace> {
    const r = await this.landmarks(img, face);
    const { expression, ms } = await r.expression();
    return { presence: r.presence, eyeFit: r.eyeFit, measurable: r.measurable, points: r.points, measures: { ...r.pose, ...expression }, modelMs: r.landmarkMs + ms };
  }

  /** The landmark model alone; the blendshapes wait until `expression()` asks for them. */
  async landmarks(img: RgbImage, face: FaceBox): Promise<LandmarkReading> {
    // [0,1] input: it fitted the detector's eye points better than [-1,1] on 14 of 22 photos.
    const landmarker = new FaceLandmarker(this.faces.model(LANDMARK_MODEL), 'unit');
    const lm = await landmarker.run(img, face);
    const fit = eyeFit(lm.image, face);
    let expression: Promise<{ expression: Expression; ms: number }> | undefined;
    return {
      pose: headPose(lm.crop),
      presence: lm.presence,
      eyeFit: fit,
      measurable: lm.presence >= MIN_PRESENCE && fit <= MAX_EYE_FIT,
      landmarkMs: lm.runMs,
      points: imagePoints(lm),
      expression: () =>
        (expression ??= (async () => {
          const t0 = performance.now();
          const shapes = await new BlendshapeModel(this.faces.model(BLENDSHAPE_MODEL)).run(lm.image);
          return {
            expression: { blinkLeft: shapes.eyeBlinkLeft, blinkRight: shapes.eyeBlinkRight, smile: (shapes.mouthSmileLeft + shapes.mouthSmileRight) / 2, jawOpen: shapes.jawOpen },
            ms: performance.now() - t0,
          };
        })()),
    };
  }
}
