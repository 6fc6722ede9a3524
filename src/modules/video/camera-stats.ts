import type { Static } from 'typebox';
import type { CameraSource } from './camera-source.js';
import type { CameraStatus, CameraStream } from './camera-stream.js';
import type { CameraCounting } from './counting/camera-counting.js';
import type { RuleView } from './counting/rules.js';
import type { RateMeter } from './frame-ring.js';
import type { CameraSchema } from './schema.js';
import type { StoredCamera } from './video-store.js';

/** The Camera object of the spec plus documented extras: the schema is the one definition. */
export type CameraView = Static<typeof CameraSchema>;

export interface CameraStats {
  camera_id: string;
  status: CameraStatus;
  frames: number;
  fps: number;
  processed_fps: number;
  dropped: number;
  restarts: number;
  rules: RuleView[];
}

export interface CameraSummary {
  total: number;
  running: number;
  down: number;
  problems: string[];
}

/** What these read of a running camera (camera-manager's Camera). */
export interface CameraParts {
  stored: StoredCamera;
  source: CameraSource;
  stream: CameraStream;
  counting: CameraCounting;
  pipeline: { dropped: number };
  processed: RateMeter;
}

export function cameraView(c: CameraParts): CameraView {
  const now = Date.now();
  return {
    camera_id: c.stored.camera_id,
    source: c.source.display,
    is_running: c.stream.isRunning,
    fps: round2(c.stream.fps(now)),
    frame_count: c.stream.frameCount,
    status: c.stream.status,
    last_error: c.stream.lastError,
    processed_fps: c.stream.isRunning ? round2(c.processed.rate(now)) : 0,
    decoder: c.stream.decoder(),
    loop: c.stored.loop,
    enabled: !c.stored.disabled,
  };
}

/** Per-camera figures and rule counts, read by the metrics scrape and the MQTT statistics. */
export function cameraStats(cameras: Iterable<CameraParts>): CameraStats[] {
  const now = Date.now();
  return [...cameras].map((c) => ({
    camera_id: c.stored.camera_id,
    status: c.stream.status,
    frames: c.stream.frameCount,
    fps: c.stream.fps(now),
    processed_fps: c.stream.isRunning ? c.processed.rate(now) : 0,
    dropped: c.pipeline.dropped,
    restarts: c.stream.restarts,
    rules: c.counting.views(),
  }));
}

/**
 * For health: how many cameras run, which do not and why, and how many are down: a
 * camera `failed` (gave up after too many restarts) or `restarting` (its stream broke)
 * is down; starting, running and ended (a file played out) cameras are not.
 */
export function cameraSummary(cameras: Iterable<CameraParts>): CameraSummary {
  const problems: string[] = [];
  let total = 0;
  let running = 0;
  let down = 0;
  for (const c of cameras) {
    total++;
    if (c.stream.isRunning) running++;
    else if (c.stream.status !== 'ended') problems.push(`${c.stored.camera_id}: ${c.stream.status}${c.stream.lastError ? ` (${c.stream.lastError})` : ''}`);
    if (c.stream.status === 'failed' || c.stream.status === 'restarting') down++;
  }
  return { total, running, down, problems };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
