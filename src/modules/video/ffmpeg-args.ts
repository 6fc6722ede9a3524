import type { HwAccelName } from '../../runtime/hw-profile.js';
import type { CameraSource } from './camera-source.js';
import { fileWhitelistArgs } from './file-source-policy.js';

/** What the argv depends on in the ffmpeg binary itself (option names moved between releases). */
export interface FfmpegCaps {
  /** libavformat major: 58 = ffmpeg 4.x, 59 = 5.x, 60 = 6.x, 61 = 7.x. */
  lavfMajor: number;
}

export interface DecodePreset {
  hwaccel: HwAccelName;
  /** Render node or GPU index, as the hw-profile names it. */
  device?: string;
}

export interface StreamArgsOptions {
  source: CameraSource;
  decode: DecodePreset;
  caps: FfmpegCaps;
  /** Frames per second let through to the pipe (drop only, never duplicated); null = every frame. */
  maxFps: number | null;
  /** Frames are scaled to fit inside this box, keeping their aspect ratio (the detector's input). */
  box: { width: number; height: number };
  /** Files: play at their native rate (a live camera's pace) or as fast as they decode (evaluation). */
  realtime: boolean;
  /** Files: start over at the end. */
  loop: boolean;
  /** RTSP: socket I/O timeout. */
  rtspTimeoutMs: number;
  /** Software decoder threads (video.decode_threads); 0 leaves it to ffmpeg. */
  decodeThreads: number;
  /** Jetson decoders are per codec; the codec is learnt from a first software run. */
  codec?: string;
}

/** NVIDIA's L4T ffmpeg names one nvv4l2 decoder per codec. */
const JETSON_DECODERS: Record<string, string> = {
  h264: 'h264_nvv4l2dec',
  hevc: 'hevc_nvv4l2dec',
  mpeg2video: 'mpeg2_nvv4l2dec',
  mpeg4: 'mpeg4_nvv4l2dec',
  vp8: 'vp8_nvv4l2dec',
  vp9: 'vp9_nvv4l2dec',
};

/**
 * Decoder options for the hw-profile's preset. Frames come back to system memory
 * (no -hwaccel_output_format) because the detector reads them on the CPU side; the
 * win is the decode itself. A device source (v4l2) is raw or MJPEG: no hwaccel.
 */
export function hwaccelArgs(decode: DecodePreset, source: CameraSource, codec?: string): string[] {
  if (source.kind === 'device') return [];
  switch (decode.hwaccel) {
    case 'none':
      return [];
    case 'cuda':
      return ['-hwaccel', 'cuda', ...(decode.device ? ['-hwaccel_device', decode.device] : [])];
    case 'vaapi':
      return ['-hwaccel', 'vaapi', '-hwaccel_device', decode.device ?? '/dev/dri/renderD128'];
    case 'qsv':
      return ['-hwaccel', 'qsv', '-qsv_device', decode.device ?? '/dev/dri/renderD128'];
    case 'jetson': {
      const decoder = codec ? JETSON_DECODERS[codec] : undefined;
      return decoder ? ['-c:v', decoder] : [];
    }
  }
}

/** True when the preset would actually decode on hardware for this source (and codec). */
export function usesHardware(decode: DecodePreset, source: CameraSource, codec?: string): boolean {
  return hwaccelArgs(decode, source, codec).length > 0;
}

/**
 * The software decoder's thread count. ffmpeg's default, a thread per core with frame
 * threading, cost about 9 % more CPU decoding the 720p25 bench file than one thread
 * (docs/benchmarks.md); several cameras share the cores anyway. Hardware decode is left alone.
 */
function decodeThreadArgs(o: Pick<StreamArgsOptions, 'decode' | 'source' | 'codec' | 'decodeThreads'>): string[] {
  return o.decodeThreads > 0 && !usesHardware(o.decode, o.source, o.codec) ? ['-threads', String(o.decodeThreads)] : [];
}

/** Options that go before -i for the kind of source. */
export function inputArgs(o: Pick<StreamArgsOptions, 'source' | 'caps' | 'realtime' | 'loop' | 'rtspTimeoutMs'>): string[] {
  switch (o.source.kind) {
    case 'rtsp': {
      // The socket timeout option was renamed in ffmpeg 5 (-stimeout -> -timeout); in 4.x
      // -timeout meant "listen for a connection", which would turn the client into a server.
      const timeoutUs = String(Math.round(o.rtspTimeoutMs * 1000));
      return ['-rtsp_transport', 'tcp', o.caps.lavfMajor >= 59 ? '-timeout' : '-stimeout', timeoutUs];
    }
    case 'file':
      // The whitelist holds ffmpeg to video containers in a local file whatever the file
      // has become since it was added (see file-source-policy.ts).
      return [...fileWhitelistArgs(), ...(o.loop ? ['-stream_loop', '-1'] : []), ...(o.realtime ? ['-re'] : [])];
    case 'device':
      return ['-f', 'v4l2'];
  }
}

function num(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(6)));
}

/**
 * The video filter: keep the first frame of each 1/maxFps time slot (drops frames of
 * a faster source, never duplicates those of a slower one, unlike the fps filter),
 * then scale into the detector's box keeping the aspect ratio.
 */
export function filterArgs(maxFps: number | null, box: { width: number; height: number }): string {
  const parts: string[] = [];
  if (maxFps !== null) {
    const f = num(maxFps);
    // +0.001 of a slot absorbs float error in t (pts x time base), which would otherwise
    // put a frame of a source running exactly at max_fps into the previous slot.
    parts.push(`select='isnan(prev_selected_t)+gt(floor(t*${f}+0.001),floor(prev_selected_t*${f}+0.001))'`);
  }
  parts.push(`scale=w=${box.width}:h=${box.height}:force_original_aspect_ratio=decrease:flags=area`);
  return parts.join(',');
}

/**
 * The whole argv for one camera stream: frames come out on stdout as a stream of
 * binary PPM images (each carries its own size, so nothing has to be probed first
 * and a resolution change mid-stream is harmless). Spawned without a shell.
 */
export function buildStreamArgs(o: StreamArgsOptions): string[] {
  const passthrough = o.caps.lavfMajor >= 60 ? ['-fps_mode', 'passthrough'] : ['-vsync', '0'];
  return [
    '-hide_banner',
    '-nostats',
    '-loglevel',
    'info',
    ...inputArgs(o),
    ...hwaccelArgs(o.decode, o.source, o.codec),
    ...decodeThreadArgs(o),
    '-i',
    o.source.input,
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-dn',
    '-vf',
    filterArgs(o.maxFps, o.box),
    // image2pipe would otherwise be treated as constant-rate and get duplicated frames.
    ...passthrough,
    '-f',
    'image2pipe',
    '-c:v',
    'ppm',
    'pipe:1',
  ];
}

/** The input video codec from ffmpeg's stream dump ("Stream #0:0: Video: h264 (High), ..."). */
export function parseInputCodec(stderrLine: string): string | undefined {
  return /^\s*Stream #\d+:\d+.*?: Video: ([a-z0-9_]+)/.exec(stderrLine)?.[1];
}

/** libavformat major from `ffmpeg -version` ("libavformat    58. 24.101 / ..."). */
export function parseLavfMajor(versionOutput: string): number | undefined {
  const m = /libavformat\s+(\d+)\.\s*\d+/.exec(versionOutput);
  return m?.[1] ? Number(m[1]) : undefined;
}

/** stderr lines that mean the hardware decoder, not the source, is the problem. */
export function isHwaccelFailure(line: string): boolean {
  return /hwaccel|AVHWDeviceContext|Failed setup for format|Device (?:creation|setup) failed|No device available|MFX session|nvv4l2|libcuda|Unknown decoder|Decoder \S+ not found/i.test(line);
}
