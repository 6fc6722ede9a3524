import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { VigilConfig } from '../../src/config/schema.js';
import { decodeImage } from '../../src/core/image-decode.js';
import { FaceService } from '../../src/modules/face/face-service.js';
import { DETECTOR_MODELS, RECOGNIZER_LANDMARKS, RECOGNIZER_MODELS } from '../../src/modules/face/model-names.js';
import { resolveProfile } from '../../src/runtime/hw-profile.js';
import { ModelRegistry } from '../../src/runtime/model-registry.js';
import { readFileSync } from 'node:fs';
import { TESTDATA } from '../../test/helpers/paths.js';

export interface RealFace {
  identity: string;
  file: string;
  embedding: Float32Array;
}

/** The face service on the real models (CPU), as the daemon builds it. */
export async function faceService(config: VigilConfig): Promise<FaceService> {
  const models = new ModelRegistry(config.face.models_dir, resolveProfile('x86-cpu'), -1, pino({ level: 'silent' }));
  const face = new FaceService(models, config);
  // Opened as the face module opens them (the detector's byte input, the recognizer's landmark model).
  for (const name of [DETECTOR_MODELS[config.face.detector], RECOGNIZER_MODELS[config.face.recognizer]]) await face.openModel(name);
  const landmarks = RECOGNIZER_LANDMARKS[RECOGNIZER_MODELS[config.face.recognizer]];
  if (landmarks) await face.openModel(landmarks);
  return face;
}

/** Embeddings of every photo of ../shared/testdata/faces/identities, sorted by identity and file. */
export async function realFaces(face: FaceService, config: VigilConfig): Promise<RealFace[]> {
  const root = join(TESTDATA, 'faces', 'identities');
  const out: RealFace[] = [];
  for (const identity of readdirSync(root).sort()) {
    for (const file of readdirSync(join(root, identity)).sort()) {
      const img = await decodeImage(readFileSync(join(root, identity, file)), { field: 'image', maxPixels: config.server.max_image_pixels });
      const f = await face.largest(img, 'image', { quality: false, liveness: false });
      out.push({ identity, file, embedding: f.embedding! });
    }
  }
  return out;
}
