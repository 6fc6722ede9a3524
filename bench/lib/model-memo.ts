// Memoises the model runs behind a liveness frame, keyed by the decoded pixels, so a bench that
// sends the same frames in hundreds of sessions (attack ladders, genuine clips) runs each model
// once per distinct image. The models are deterministic, so every session is judged exactly as
// without the memo: the session rules, capture checks and the judge still run on every frame.
// Bench-only: it patches the instances of one test app.
import { createHash } from 'node:crypto';
import type { RgbImage } from '../../src/core/image-decode.js';
import type { AnalyzeOptions, FaceService } from '../../src/modules/face/face-service.js';
import type { FaceBox } from '../../src/modules/liveness/face-roi.js';
import type { FaceMeasurer } from '../../src/modules/liveness/face-measurer.js';
import type { LivenessService } from '../../src/modules/liveness/liveness-service.js';

const pixels = (img: RgbImage) => createHash('sha1').update(img.data).digest('hex') + `:${img.width}x${img.height}`;

/** What changes a model's answer besides the pixels (timings are left out: they only collect). */
const optKey = (o: AnalyzeOptions = {}) => JSON.stringify({ ...o, timings: undefined });

export interface MemoStats {
  hits: number;
  misses: number;
}

function memo<A extends unknown[], R>(fn: (...a: A) => Promise<R>, key: (...a: A) => string, stats: MemoStats): (...a: A) => Promise<R> {
  const seen = new Map<string, Promise<R>>();
  return (...a: A) => {
    const k = key(...a);
    const hit = seen.get(k);
    if (hit) {
      stats.hits++;
      return hit;
    }
    stats.misses++;
    const p = fn(...a);
    seen.set(k, p);
    p.catch(() => seen.delete(k));
    return p;
  };
}

/** Patches the face service and the liveness measurer of `service` in place; returns the hit counters. */
export function memoiseLivenessModels(service: LivenessService): MemoStats {
  const stats: MemoStats = { hits: 0, misses: 0 };
  const inner = service as unknown as { faces: FaceService; measurer: FaceMeasurer };
  const faces = inner.faces;
  const detect = faces.detect.bind(faces);
  const analyzeFaces = faces.analyzeFaces.bind(faces);
  faces.detect = memo(detect, (img, o) => `${pixels(img)}|${optKey(o)}`, stats);
  faces.analyzeFaces = memo(analyzeFaces, (img, fs, o) => `${pixels(img)}|${JSON.stringify(fs.map((f) => f.box))}|${optKey(o)}`, stats);
  const measurer = inner.measurer;
  // The reading keeps its blendshapes run once asked for, so a memoised reading runs them once too.
  const landmarks = measurer.landmarks.bind(measurer);
  measurer.landmarks = memo(landmarks, (img: RgbImage, f: FaceBox) => `${pixels(img)}|${JSON.stringify(f)}`, stats);
  return stats;
}
