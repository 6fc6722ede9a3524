import type { FaceResult } from './face-service.js';

/**
 * The `data` of a face_detected event (the spec leaves it open): where the faces came
 * from, how many, and per face the box, confidence, size and liveness verdict (no
 * embeddings, no images). The video module publishes the same shape with a camera_id.
 */
export interface FaceDetectedData {
  [key: string]: unknown;
  origin: string;
  count: number;
  faces: { bbox: [number, number, number, number]; confidence: number; face_size: number; is_live: boolean | null }[];
}

export function faceDetectedData(origin: string, faces: FaceResult[]): FaceDetectedData {
  return {
    origin,
    count: faces.length,
    faces: faces.map((f) => ({
      bbox: f.detection.bbox,
      confidence: f.detection.confidence,
      face_size: f.detection.face_size,
      is_live: f.liveness ? f.liveness.is_live : null,
    })),
  };
}
