import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MotBox } from './mot-metrics.js';

export interface Scene {
  name: string;
  video: string;
  gt: string;
  width: number;
  height: number;
  fps: number;
  /** Tuning scenes are the ones counting was tuned on; KITTI-17 is held back. */
  split: 'tuning' | 'held-back';
}

export const SCENES: Scene[] = [
  { name: 'PETS09-S2L1', video: 'PETS09-S2L1/vtest.avi', gt: 'PETS09-S2L1/gt.txt', width: 768, height: 576, fps: 7, split: 'tuning' },
  { name: 'TUD-Campus', video: 'TUD-Campus/TUD-Campus.mp4', gt: 'TUD-Campus/gt.txt', width: 640, height: 480, fps: 25, split: 'tuning' },
  { name: 'TUD-Stadtmitte', video: 'TUD-Stadtmitte/TUD-Stadtmitte.mp4', gt: 'TUD-Stadtmitte/gt.txt', width: 640, height: 480, fps: 25, split: 'tuning' },
  { name: 'KITTI-17', video: 'KITTI-17/KITTI-17.mp4', gt: 'KITTI-17/gt/gt.txt', width: 1224, height: 370, fps: 10, split: 'held-back' },
];

/** A scene as the camera delivers it: the file, the frame it fills, and where the scene lies in that frame. */
export interface Placement {
  file: string;
  frameW: number;
  frameH: number;
  ox: number;
  oy: number;
}

export const WIDE = { width: 1920, height: 1080 };

/**
 * Small-people material: the scene at its own pixel size in the middle of a 1920x1080
 * frame (grey around it), as a 1080p camera with a wider view sees the same people:
 * after the detector's 416-pixel box they are 2.5 (PETS) to 3 (TUD) times smaller than
 * in the original. Encoded once (x264 CRF 12) into the cache folder.
 */
export function placeScene(ffmpeg: string, testdata: string, s: Scene, wide: boolean, cacheDir: string): Placement {
  const src = join(testdata, s.video);
  if (!wide) return { file: src, frameW: s.width, frameH: s.height, ox: 0, oy: 0 };
  const ox = Math.round((WIDE.width - s.width) / 2 / 2) * 2;
  const oy = Math.round((WIDE.height - s.height) / 2 / 2) * 2;
  mkdirSync(cacheDir, { recursive: true });
  const file = join(cacheDir, `${s.name}-in-1080p.mp4`);
  if (!existsSync(file)) {
    execFileSync(ffmpeg, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      src,
      '-vf',
      `pad=${WIDE.width}:${WIDE.height}:${ox}:${oy}:color=0x7f7f7f`,
      '-c:v',
      'libx264',
      '-crf',
      '12',
      '-preset',
      'veryfast',
      '-pix_fmt',
      'yuv420p',
      file,
    ]);
  }
  return { file, frameW: WIDE.width, frameH: WIDE.height, ox, oy };
}

/**
 * Ground-truth boxes moved into the delivered frame. With `clip` (the default rule),
 * cut to the part of the scene the camera sees first: the annotators drew whole people
 * also where they stand partly outside the picture, and a point no camera can see
 * (the feet of someone half out of frame) is not what a counter can be asked to count.
 */
export function placeBoxes(boxes: MotBox[], p: Placement, scene: { width: number; height: number }, clip = true): MotBox[] {
  const out: MotBox[] = [];
  for (const b of boxes) {
    let { x, y, w, h } = b;
    if (clip) {
      const x2 = Math.min(scene.width, x + w);
      const y2 = Math.min(scene.height, y + h);
      x = Math.max(0, x);
      y = Math.max(0, y);
      w = x2 - x;
      h = y2 - y;
      if (w <= 1 || h <= 1) continue;
    }
    out.push({ ...b, x: x + p.ox, y: y + p.oy, w, h });
  }
  return out;
}
