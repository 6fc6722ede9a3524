import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import sharp from 'sharp';
import { CHALLENGE_TYPES, type ChallengeType, type RandomIndex } from '../../src/modules/liveness/challenges.js';
import { testdata } from '../helpers/paths.js';

export const CLIP = 'video/fr_short_hamilton_clip.mp4';

/**
 * Frames of the Hamilton clip by index (0-based decode order), as PNG, decoded by the bundled
 * ffmpeg in one pass. Lin-Manuel Miranda faces the camera in frames 107-234 (~95 px faces).
 */
export function clipFrames(indices: number[]): Map<number, Buffer> {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-frames-'));
  try {
    const select = sorted.map((n) => `eq(n\\,${n})`).join('+');
    execFileSync(ffmpeg.path, ['-loglevel', 'error', '-i', testdata(CLIP), '-vf', `select=${select}`, '-vsync', '0', '-start_number', '0', join(dir, '%03d.png')]);
    const files = readdirSync(dir).sort();
    if (files.length !== sorted.length) throw new Error(`ffmpeg wrote ${files.length} frames, expected ${sorted.length}`);
    return new Map(sorted.map((n, i) => [n, readFileSync(join(dir, files[i]!))]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The frame flipped left-right: a head turned to the user's right becomes one turned to their left. */
export function mirror(png: Buffer): Promise<Buffer> {
  return sharp(png).flop().png().toBuffer();
}

/**
 * A RandomIndex that makes drawChallenges return exactly `order` (it replays the partial
 * Fisher-Yates draw), so a test can ask for the challenges its frames perform.
 */
export function scriptedDraw(order: ChallengeType[]): RandomIndex {
  const pool = [...CHALLENGE_TYPES];
  const picks: number[] = [];
  order.forEach((type, i) => {
    const j = pool.indexOf(type, i);
    if (j < 0) throw new Error(`challenge ${type} repeated or unknown`);
    picks.push(j - i);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  });
  let k = 0;
  return () => {
    const v = picks[k++];
    if (v === undefined) throw new Error('scriptedDraw exhausted');
    return v;
  };
}
