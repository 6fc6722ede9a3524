import type { VigilConfig } from '../../config/schema.js';
import { LANDMARK_MODEL } from '../liveness/face-measurer.js';

/** Manifest names of the face models each configuration choice runs. */
export const DETECTOR_MODELS: Record<VigilConfig['face']['detector'], string> = {
  scrfd_500m: 'face_det_scrfd_500m',
  'scrfd_2.5g': 'face_det_scrfd_2.5g',
  yunet: 'face_det_yunet',
};

export const RECOGNIZER_MODELS: Record<VigilConfig['face']['recognizer'], string> = {
  mobilefacenet_128d: 'face_rec_mobilefacenet_128d',
  faceplugin_512d: 'face_rec_faceplugin_512d',
  dlib_resnet_128d: 'face_rec_dlib_resnet_128d',
};

/** The dense landmark model a recognizer's alignment needs (dlib's chip is fitted on 32 landmarks, dlib-chip.ts). */
export const RECOGNIZER_LANDMARKS: Partial<Record<string, string>> = {
  face_rec_dlib_resnet_128d: LANDMARK_MODEL,
};

/** Passive liveness: MiniFASNetV2 on a 2.7x crop fused with MiniFASNetV1SE on a 4.0x crop, as upstream. */
export const LIVENESS_MODELS = ['antispoof_minifasnet_v2', 'antispoof_minifasnet_v1se'];
