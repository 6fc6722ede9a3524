import { parseCameraSource } from '../../src/modules/video/camera-source.js';
import { buildStreamArgs } from '../../src/modules/video/ffmpeg-args.js';
import type { FfmpegInfo } from '../../src/modules/video/ffmpeg-binary.js';

/**
 * The camera argv the daemon builds for a video file, CPU decode, scaled into a `size` box:
 * every frame as fast as it decodes (the default), or in real time at `maxFps`, looping.
 */
export function fileStreamArgs(ff: FfmpegInfo, file: string, size: number, realtime: { maxFps: number } | null = null): string[] {
  return buildStreamArgs({
    source: parseCameraSource(file),
    decode: { hwaccel: 'none' },
    caps: ff.caps,
    maxFps: realtime ? realtime.maxFps : null,
    box: { width: size, height: size },
    realtime: realtime !== null,
    loop: realtime !== null,
    rtspTimeoutMs: 5000,
  });
}
