import { join } from 'node:path';
import pino from 'pino';
import { packageRoot } from '../../src/core/package-root.js';
import { readProfile } from '../../src/runtime/hw-profile.js';
import { ModelRegistry } from '../../src/runtime/model-registry.js';
import { ffmpegPath, probeFfmpeg, type FfmpegInfo } from '../../src/modules/video/ffmpeg-binary.js';
import type { YoloxPersonDetector } from '../../src/modules/person/yolox-detector.js';
import { withAppearance } from './appearance-cache.js';
import { detectAll, openDetector } from './detection-cache.js';
import { readMot, type MotBox } from './mot-metrics.js';
import { placeBoxes, placeScene, type Scene } from './scenes.js';

/** What the benches over the shared MOT scenes start from. */
export interface SceneBench {
  /** ../shared/testdata/video */
  testdata: string;
  /** bench/out/cache: decoded detections and appearances kept between runs. */
  cache: string;
  registry: ModelRegistry;
  /** YOLOX as the daemon loads it: in the registry's inference worker, person.detector_threads 1. */
  detector: YoloxPersonDetector;
  /** The detector's model file (part of the cache key). */
  modelFile: string;
  ff: FfmpegInfo;
}

/** The person detector at `input` pixels and the ffmpeg the x86-cpu profile names. */
export async function openSceneBench(input: number): Promise<SceneBench> {
  const root = packageRoot();
  const registry = new ModelRegistry(join(root, 'models'), readProfile('x86-cpu'), -1, pino({ level: 'silent' }));
  const { detector, file: modelFile } = await openDetector(registry, join(root, 'models'), input);
  const ff = await probeFfmpeg(ffmpegPath(readProfile('x86-cpu')));
  return { testdata: join(root, '..', 'shared', 'testdata', 'video'), cache: join(root, 'bench', 'out', 'cache'), registry, detector, modelFile, ff };
}

/**
 * A scene as the appearance benches read it: placed in its frame, every frame's detections (score
 * 0.1 and up) with the colour descriptors of those at 0.3 and up (both cached), and the annotated
 * people by frame number.
 */
export async function describedScene(b: SceneBench, scene: Scene) {
  const place = placeScene(b.ff.path, b.testdata, scene, false, b.cache);
  const det = await detectAll(b.ff, b.detector, b.modelFile, place.file, b.cache, 0.1);
  const frames = await withAppearance(b.ff, place.file, b.detector.inputSize, det.frames, 0.3, b.cache);
  const byFrame = new Map<number, MotBox[]>();
  for (const box of placeBoxes(readMot(join(b.testdata, scene.gt)).boxes, place, scene, true)) byFrame.set(box.frame, [...(byFrame.get(box.frame) ?? []), box]);
  return { place, frames, byFrame };
}
