import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Detection, YoloxPersonDetector } from '../../src/modules/person/yolox-detector.js';
import type { FfmpegInfo } from '../../src/modules/video/ffmpeg-binary.js';
import { PpmStreamParser, type RawFrame } from '../../src/modules/video/ppm-stream.js';
import { fileStreamArgs } from './file-stream.js';

export interface DetectedFrame {
  width: number;
  height: number;
  dets: Detection[];
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
): Promise<{ frames: DetectedFrame[]; msPerFrame: number | null }> {
  const v = statSync(file);
  const m = statSync(modelFile);
  const tag = `${file.replace(/[^A-Za-z0-9]+/g, '_').slice(-80)}-${v.size}-${Math.round(v.mtimeMs)}-${m.size}-${detector.inputSize}-${minScore}`;
  mkdirSync(cacheDir, { recursive: true });
  const path = join(cacheDir, `det-${tag}.json`);
  if (existsSync(path)) return { frames: JSON.parse(readFileSync(path, 'utf8')) as DetectedFrame[], msPerFrame: null };
  const out: DetectedFrame[] = [];
  const t0 = performance.now();
  for await (const f of frames(ff, file, detector.inputSize)) {
    const dets = await detector.detect(f, minScore);
    out.push({ width: f.width, height: f.height, dets });
  }
  const msPerFrame = (performance.now() - t0) / Math.max(1, out.length);
  writeFileSync(path, JSON.stringify(out));
  return { frames: out, msPerFrame };
}
