import type { RgbImage } from '../../core/image-decode.js';
import type { FaceService, StageTimings } from '../face/face-service.js';
import type { FaceBox } from './face-roi.js';

/** What the liveness judge needs of each face in a frame. */
export interface FrameFace extends FaceBox {
  face_size: number;
  /** Passive liveness (MiniFASNet) verdict, or null when face.enable_liveness is off. */
  liveness: { is_live: boolean; score: number } | null;
  embedding: Float32Array | null;
}

/**
 * Faces of one frame through the face service: detection, 5 points, embedding and passive
 * liveness, largest first. Quality and demographics are not needed here and not computed.
 */
export async function frameFaces(faceService: FaceService, img: RgbImage, timings?: StageTimings): Promise<FrameFace[]> {
  const faces = await faceService.analyze(img, { embed: true, quality: false, liveness: true, demographics: false, maxFaces: 3, ...(timings ? { timings } : {}) });
  return faces.map(({ result, embedding }) => ({
    bbox: result.detection.bbox,
    landmarks: result.detection.landmarks,
    face_size: result.detection.face_size,
    liveness: result.liveness,
    embedding,
  }));
}
