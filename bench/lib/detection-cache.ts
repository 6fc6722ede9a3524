import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nms, YoloxPersonDetector, type Detection, type RgbFrame } from '../../src/modules/person/yolox-detector.js';

import { PERSON_MODEL } from '../../src/modules/person/person-service.js';
import type { ModelRegistry } from '../../src/runtime/model-registry.js';
import type { FfmpegInfo } from '../../src/modules/video/ffmpeg-binary.js';
import { PpmStreamParser, type RawFrame } from '../../src/modules/video/ppm-stream.js';
import { fileStreamArgs } from './file-stream.js';

export interface DetectedFrame {
  width: number;
  height: number;
  dets: Detection[];
}

/**
 * The person detector as the daemon opens it (one intra-op thread, person.detector_threads):
 * with `input` > 0 (person.detector_input) the weights with free spatial dims, each frame fed
 * at its own aspect with `input` as the long side; with 0 the MANIFEST's fixed 416 square.
 */
export async function openDetector(registry: ModelRegistry, modelsDir: string, input: number): Promise<{ detector: YoloxPersonDetector; file: string }> {
  const file = join(modelsDir, `${PERSON_MODEL}_416.onnx`);
  const model = await registry.load(PERSON_MODEL, { intraOpThreads: 1, freeInputDims: input > 0 });
  if (!model) throw new Error(`person detector unavailable: ${registry.status(PERSON_MODEL)?.reason}`);
  return { detector: new YoloxPersonDetector(model, input > 0 ? { longSide: input } : undefined), file };
}

/** Every frame of a file through the camera argv and the PPM parser, with backpressure. */
export async function* frames(ff: FfmpegInfo, file: string, size: number): AsyncGenerator<RawFrame> {
  const child = spawn(ff.path, fileStreamArgs(ff, file, size), { stdio: ['ignore', 'pipe', 'ignore'] });
  const queue: RawFrame[] = [];
  const parser = new PpmStreamParser((f) => queue.push(f));
  for await (const chunk of child.stdout) {
    parser.push(chunk as Buffer);
    while (queue.length) yield queue.shift()!;
  }
}

/**
 * The detector's output for every frame of a video, computed once and kept under
 * bench/out/cache: decoding (CPU, ffmpeg's scaler) and YOLOX on onnxruntime's CPU
 * provider with one thread are deterministic, so a cached run gives the tracker and
 * the counters exactly the detections a fresh one would. The key holds the video,
 * its size and mtime, the model file's size and the detector input size.
 */
export async function detectAll(
  ff: FfmpegInfo,
  detector: YoloxPersonDetector,
  modelFile: string,
  file: string,
  cacheDir: string,
  minScore: number,
  tiles = 1,
): Promise<{ frames: DetectedFrame[]; msPerFrame: number | null }> {
  const v = statSync(file);
  const m = statSync(modelFile);
  const tag = `${file.replace(/[^A-Za-z0-9]+/g, '_').slice(-80)}-${v.size}-${Math.round(v.mtimeMs)}-${m.size}-${detector.inputSize}${detector.shapedToFrame ? 'shaped' : ''}-${minScore}${tiles > 1 ? `-tiles${tiles}` : ''}`;
  mkdirSync(cacheDir, { recursive: true });
  const path = join(cacheDir, `det-${tag}.json`);
  if (existsSync(path)) return { frames: JSON.parse(readFileSync(path, 'utf8')) as DetectedFrame[], msPerFrame: null };
  const out: DetectedFrame[] = [];
  const t0 = performance.now();
  for await (const f of frames(ff, file, detector.inputSize * tiles)) {
    const dets = tiles > 1 ? await detectTiled(detector, f, tiles, minScore) : await detector.detect(f, minScore);
    out.push({ width: f.width, height: f.height, dets });
  }
  const msPerFrame = (performance.now() - t0) / Math.max(1, out.length);
  writeFileSync(path, JSON.stringify(out));
  return { frames: out, msPerFrame };
}

/**
 * Tiling for small, far people: the frame, delivered `tiles` times larger than the
 * detector's input, cut into a tiles x tiles grid of overlapping tiles (each about the
 * input's size), every tile detected at full resolution, boxes merged by NMS. Costs
 * tiles^2 detector runs per frame.
 */
export async function detectTiled(detector: YoloxPersonDetector, f: RgbFrame, tiles: number, minScore: number): Promise<Detection[]> {
  const overlap = 0.15;
  const tw = Math.min(f.width, Math.ceil((f.width / tiles) * (1 + overlap)));
  const th = Math.min(f.height, Math.ceil((f.height / tiles) * (1 + overlap)));
  const all: Detection[] = [];
  for (let ty = 0; ty < tiles; ty++) {
    for (let tx = 0; tx < tiles; tx++) {
      const x0 = tiles === 1 ? 0 : Math.round((tx * (f.width - tw)) / (tiles - 1));
      const y0 = tiles === 1 ? 0 : Math.round((ty * (f.height - th)) / (tiles - 1));
      const data = Buffer.alloc(tw * th * 3);
      for (let y = 0; y < th; y++) Buffer.from(f.data.buffer, f.data.byteOffset + ((y0 + y) * f.width + x0) * 3, tw * 3).copy(data, y * tw * 3);
      for (const d of await detector.detect({ data, width: tw, height: th }, minScore)) {
        all.push({ x1: d.x1 + x0, y1: d.y1 + y0, x2: d.x2 + x0, y2: d.y2 + y0, score: d.score });
      }
    }
  }
  return nms(all, 0.45);
}
