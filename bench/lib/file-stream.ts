import { parseCameraSource } from '../../src/modules/video/camera-source.js';
import { buildStreamArgs } from '../../src/modules/video/ffmpeg-args.js';
import type { FfmpegInfo } from '../../src/modules/video/ffmpeg-binary.js';

/**
 * The camera argv the daemon builds for a video file, CPU decode, scaled into a `size` box:
 * every frame as fast as it decodes with ffmpeg's own threads (the default), or as a camera in real
 * time at `maxFps`, looping, with the daemon's video.decode_threads.
 */
export function fileStreamArgs(ff: FfmpegInfo, file: string, size: number, realtime: { maxFps: number; decodeThreads: number } | null = null): string[] {
  return buildStreamArgs({
    source: parseCameraSource(file),
    decode: { hwaccel: 'none' },
    caps: ff.caps,
    maxFps: realtime ? realtime.maxFps : null,
    box: { width: size, height: size },
    realtime: realtime !== null,
    loop: realtime !== null,
    rtspTimeoutMs: 5000,
    decodeThreads: realtime ? realtime.decodeThreads : 0,
  });
}
