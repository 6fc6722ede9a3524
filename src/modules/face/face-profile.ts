import type { VigilConfig } from '../../config/schema.js';

/**
 * `face.profile: commercial`: a face stack built only from models whose weights carry a
 * permissive licence (models/manifest.json `commercial_use`): YuNet (Apache-2.0), dlib's ResNet
 * recognizer (public domain, via face-api), MiniFASNet (Apache-2.0); the liveness module's
 * MediaPipe models are Apache-2.0 too. The profile fills the face settings the operator left
 * unset and refuses, at start-up, a setting that would bring a model back whose licence is
 * non-commercial or unverified (SCRFD, Faceplugin, MobileFaceNet, HSE FaceRes demographics).
 */
export const COMMERCIAL_FACE: Partial<VigilConfig['face']> = {
  detector: 'yunet',
  recognizer: 'dlib_resnet_128d',
  // OpenCV Zoo's default score threshold for YuNet (face_detection_yunet demo: 0.9); the
  // schema default 0.5 is SCRFD's, and YuNet's score is sqrt(cls x obj) on another scale.
  det_thresh: 0.9,
  enable_demographics: false,
};

/** Settings the commercial profile cannot take, with the licence reason. */
const NOT_CLEARED: Record<string, (v: unknown) => string | undefined> = {
  detector: (v) => (v !== 'yunet' ? `${String(v)} is licensed for non-commercial research only; face.profile commercial uses yunet` : undefined),
  recognizer: (v) => (v !== 'dlib_resnet_128d' ? `${String(v)}'s weights have no verified commercial licence; face.profile commercial uses dlib_resnet_128d` : undefined),
  enable_demographics: (v) => (v === true ? "the demographics model's (HSE FaceRes) upstream licence is unverified; face.profile commercial runs without it" : undefined),
};

export interface ProfileProblem {
  path: string;
  value: string;
  message: string;
}

/**
 * Applies face.profile to a validated configuration: `written` is the face section as the
 * operator wrote it (file and environment, before defaults), `face` the validated one.
 */
export function applyFaceProfile(written: Record<string, unknown> | undefined, face: VigilConfig['face']): ProfileProblem[] {
  if (face.profile !== 'commercial') return [];
  const problems: ProfileProblem[] = [];
  const target = face as Record<string, unknown>;
  for (const [key, value] of Object.entries(COMMERCIAL_FACE)) {
    const given = written?.[key];
    if (given === undefined) target[key] = value;
    else {
      const why = NOT_CLEARED[key]?.(given);
      if (why) problems.push({ path: `face.${key}`, value: JSON.stringify(given), message: why });
    }
  }
  return problems;
}
