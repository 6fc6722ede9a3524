import { execFile } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { AppError, BadRequestError } from '../../core/errors.js';

/**
 * Demuxers a file camera may be read with: video containers and raw video elementary
 * streams only. Left out on purpose: image2/image2pipe/*_pipe and mjpeg (any still
 * image on disk would decode as a "video"), tty (any text file renders as frames),
 * concat/hls/dash (they open further files or URLs named inside the file).
 * ffmpeg matches a demuxer by any of its comma-separated names ("mov,mp4,m4a,...").
 */
export const VIDEO_DEMUXERS = ['mov', 'matroska', 'avi', 'mpegts', 'flv', 'asf', 'mpeg', 'h264', 'hevc', 'ivf', 'm4v', 'mpegvideo'] as const;

/** ffmpeg input options that hold a file source to video containers read from a local file. */
export function fileWhitelistArgs(): string[] {
  return ['-format_whitelist', VIDEO_DEMUXERS.join(','), '-protocol_whitelist', 'file'];
}

/** 403: the path resolves outside every video.file_roots folder. */
export class SourceOutsideRootsError extends AppError {
  constructor(path: string) {
    super(403, 'SOURCE_OUTSIDE_ROOTS', `file source ${path} is not inside a folder of video.file_roots`, { source: path });
  }
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/**
 * Where a file source really is, after the root check: the path as written (`..`
 * collapsed) must lie inside a root, and so must its real path once every symlink is
 * resolved, so neither `..` nor a link placed inside a root can reach out. The lexical
 * check runs first so a path outside the roots is refused without touching the disk
 * (no existence oracle). Returns null when the file does not exist (yet): the camera
 * reports it and retries, as a mount may still appear.
 */
export function resolveFileSource(path: string, roots: readonly string[]): string | null {
  const lexical = resolve(path);
  if (!roots.some((r) => inside(lexical, resolve(r)))) throw new SourceOutsideRootsError(path);
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new BadRequestError('INVALID_SOURCE', `file source ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!roots.some((r) => inside(real, realOrSelf(r)))) throw new SourceOutsideRootsError(path);
  if (!statSync(real).isFile()) throw new BadRequestError('INVALID_SOURCE', `file source ${path} is not a regular file`);
  return real;
}

/**
 * Proves by its content that a file is a video ffmpeg opens with the whitelisted
 * demuxers and decodes one frame from; the name is never trusted (a .txt renamed .mp4
 * still fails). 415 SOURCE_NOT_VIDEO otherwise, with ffmpeg's own words.
 */
export function probeVideoFile(ffmpeg: string, realPath: string, timeoutMs = 15_000): Promise<void> {
  const args = ['-hide_banner', '-nostdin', '-v', 'error', ...fileWhitelistArgs(), '-i', `file:${realPath}`, '-map', '0:v:0', '-frames:v', '1', '-f', 'null', '-'];
  return new Promise((resolvePromise, reject) => {
    execFile(ffmpeg, args, { timeout: timeoutMs, maxBuffer: 256 * 1024 }, (err, _stdout, stderr) => {
      if (!err) return resolvePromise();
      const why =
        String(stderr)
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .slice(-2)
          .join('; ') || err.message;
      reject(new AppError(415, 'SOURCE_NOT_VIDEO', `file source is not a video in an allowed container (${VIDEO_DEMUXERS.join(', ')}): ${why.replace(realPath, '<file>')}`));
    });
  });
}
