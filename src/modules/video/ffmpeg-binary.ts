import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import type { HwProfile } from '../../runtime/hw-profile.js';
import { parseLavfMajor, type FfmpegCaps } from './ffmpeg-args.js';

const run = promisify(execFile);

export interface FfmpegInfo {
  path: string;
  /** First line of `ffmpeg -version`. */
  version: string;
  caps: FfmpegCaps;
}

/** The hw-profile's ffmpeg: the bundled static build, or the system's (path or PATH). */
export function ffmpegPath(profile: HwProfile): string {
  if (profile.ffmpeg.binary === 'system') return profile.ffmpeg.path ?? 'ffmpeg';
  const require = createRequire(import.meta.url);
  return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

/** Runs `ffmpeg -version` once: proves the binary starts and tells which option names it takes. */
export async function probeFfmpeg(path: string): Promise<FfmpegInfo> {
  let stdout: string;
  try {
    ({ stdout } = await run(path, ['-hide_banner', '-version'], { timeout: 15_000 }));
  } catch (err) {
    throw new Error(`ffmpeg (${path}) does not run: ${(err as Error).message.split('\n')[0]}`);
  }
  const lavfMajor = parseLavfMajor(stdout);
  if (lavfMajor === undefined) throw new Error(`ffmpeg (${path}) -version shows no libavformat version`);
  return { path, version: stdout.split('\n')[0]?.trim() ?? 'ffmpeg', caps: { lavfMajor } };
}
