import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPEARANCE_LENGTH, describeDetections, type Appearance } from '../../src/modules/person/appearance.js';
import type { DescribedDetection } from '../../src/modules/person/bytetrack.js';
import type { FfmpegInfo } from '../../src/modules/video/ffmpeg-binary.js';
import { frames as decodeFrames, type DetectedFrame } from './detection-cache.js';

/** Bump when appearance.ts changes what it computes: the cached descriptors are then recomputed. */
const VERSION = 2;

/**
 * The cached detections of a video with each one's appearance (what the camera pipeline
 * computes from the frame it hands the detector: src/modules/person/appearance.ts). The
 * frames are decoded again through the same argv (deterministic, so frame i is the frame
 * detection i came from) and the descriptors are kept beside the detections under
 * bench/out/cache.
 */
export interface DescribedFrame extends DetectedFrame {
  dets: DescribedDetection[];
}

export async function withAppearance(ff: FfmpegInfo, file: string, size: number, frames: DetectedFrame[], minScore: number, cacheDir: string): Promise<DescribedFrame[]> {
  const v = statSync(file);
  const tag = `${file.replace(/[^A-Za-z0-9]+/g, '_').slice(-80)}-${v.size}-${Math.round(v.mtimeMs)}-${size}-${frames.length}-${minScore}-v${VERSION}`;
  mkdirSync(cacheDir, { recursive: true });
  const path = join(cacheDir, `look-${tag}.json`);
  let looks: (number[] | null)[][];
  if (existsSync(path)) looks = JSON.parse(readFileSync(path, 'utf8')) as (number[] | null)[][];
  else {
    looks = [];
    let i = 0;
    for await (const f of decodeFrames(ff, file, size)) {
      const det = frames[i++];
      if (!det) break;
      if (f.width !== det.width || f.height !== det.height) throw new Error(`frame ${i} is ${f.width}x${f.height}, its detections ${det.width}x${det.height}`);
      looks.push(describeDetections(f, det.dets, minScore).map((a) => (a ? Array.from(a, (x) => Math.round(x * 1e4) / 1e4) : null)));
    }
    if (looks.length !== frames.length) throw new Error(`decoded ${looks.length} frames, ${frames.length} detected`);
    writeFileSync(path, JSON.stringify(looks));
  }
  return frames.map((f, i) => ({
    ...f,
    dets: f.dets.map((d, j): DescribedDetection => {
      const l = looks[i]![j];
      return { ...d, look: l && l.length === APPEARANCE_LENGTH ? (Float32Array.from(l) as Appearance) : null };
    }),
  }));
}
