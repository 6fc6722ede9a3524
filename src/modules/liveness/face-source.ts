import type { RgbImage } from '../../core/image-decode.js';
import type { RawFace } from '../face/face-geometry.js';
import type { AnalyzeOptions, FaceService, StageTimings } from '../face/face-service.js';
import type { FaceBox } from './face-roi.js';

/** What the liveness judge needs of each face in a frame. */
export interface FrameFace extends FaceBox {
  face_size: number;
  /** Passive liveness (MiniFASNet) verdict, or null when face.enable_liveness is off. */
  liveness: { is_live: boolean; score: number } | null;
  embedding: Float32Array | null;
}

/** Quality and demographics are not needed to judge a frame and are not computed. */
const frameOptions = (timings?: StageTimings): AnalyzeOptions => ({ embed: true, quality: false, liveness: true, demographics: false, maxFaces: 3, ...(timings ? { timings } : {}) });

/** A frame's faces as the detector finds them, largest first (at most 3). */
export function detectFrameFaces(faceService: FaceService, img: RgbImage, timings?: StageTimings): Promise<RawFace[]> {
  return faceService.detect(img, frameOptions(timings));
}

/** Embedding and passive liveness of detected faces, in their order. */
export async function analyseFrameFaces(faceService: FaceService, img: RgbImage, detected: RawFace[], timings?: StageTimings): Promise<FrameFace[]> {
  const faces = await faceService.analyzeFaces(img, detected, frameOptions(timings));
  return faces.map(({ result, embedding }) => ({
    bbox: result.detection.bbox,
    landmarks: result.detection.landmarks,
    face_size: result.detection.face_size,
    liveness: result.liveness,
    embedding,
  }));
}

/** Both steps, for callers that need nothing in between. */
export async function frameFaces(faceService: FaceService, img: RgbImage, timings?: StageTimings): Promise<FrameFace[]> {
  return analyseFrameFaces(faceService, img, await detectFrameFaces(faceService, img, timings), timings);
}

/** A detection as the landmark model takes it. */
export function faceBox(face: RawFace): FaceBox {
  return { bbox: face.box, landmarks: face.kps };
}
