import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineModule, type ModuleRuntime } from '../../core/module.js';
import { CameraManager } from './camera-manager.js';
import type { FrameConsumer } from './camera-pipeline.js';
import { FaceOnFrames, watchlistSearch } from './face-on-frames.js';
import { VideoMqttState, wireVideoMqtt } from './counts-mqtt.js';
import { ffmpegPath, probeFfmpeg } from './ffmpeg-binary.js';
import { videoRoutes } from './routes.js';
import { registerVideoMetrics } from './video-metrics.js';
import { VideoStore, videoStoreDir } from './video-store.js';

declare module '../../core/module.js' {
  interface ModuleServices {
    /** The cameras; idle (never started) while video.enabled is false. */
    video: CameraManager;
  }
}

/** Builds the camera manager over its store, the person detector and the face and MQTT consumers. */
function cameraManager({ app, ctx, enabled }: ModuleRuntime): CameraManager {
  const { config, log, bus, profile } = ctx;
  const store = new VideoStore(videoStoreDir(config.server.data_dir), ctx.storage);
  const consumers: FrameConsumer[] = [];
  if (enabled && config.video.track_faces) {
    const identify = config.identity.enabled ? watchlistSearch(app.identity, config.video.face_match_threshold) : undefined;
    consumers.push(new FaceOnFrames({ faces: app.face, bus, log: log.child({ module: 'video', part: 'faces' }), faceFps: config.video.face_fps, identify }));
  }
  // Counts and camera status as retained MQTT state, over the events module's connection.
  const mqttState = new VideoMqttState(app.events.mirror);
  const manager = new CameraManager({ config, profile, log: log.child({ module: 'video' }), bus, store, person: app.person, consumers, mqttState });
  if (enabled) {
    registerVideoMetrics(ctx.metrics, manager);
    wireVideoMqtt(app.events.mirror, manager);
  }
  return manager;
}

/**
 * Video module: cameras (supervised ffmpeg streams) feeding person detection,
 * tracking and line/zone counting. With video.enabled false the routes answer
 * 503 MODULE_DISABLED and health leaves the module out.
 */
export default defineModule({
  name: 'video',
  dependencies: ['events', 'face', 'person', 'identity'],
  eventTypes: ['person_entered', 'person_exited', 'line_crossed', 'face_detected', 'face_matched', 'watchlist_alert', 'system_error'],
  service: cameraManager,
  start: async (manager, { ctx: { config, log, profile } }) => {
    manager.store.open();
    // The default root is created so an operator sees where file sources belong.
    const media = join(config.server.data_dir, 'media');
    if (config.video.file_roots.includes(media)) mkdirSync(media, { recursive: true });
    const info = await probeFfmpeg(ffmpegPath(profile)).catch((err: Error) => err);
    if (info instanceof Error) log.error({ err: info.message }, 'ffmpeg unavailable: cameras cannot run');
    await manager.start(info);
  },
  stop: async (manager) => {
    await manager.stop();
    await manager.store.close();
  },
  // A start that threw (the camera store cannot open, say) is remembered by the lifecycle;
  // health and /admin/models say why instead of "not started".
  components: (manager, m) => ({
    camera_manager: () => {
      if (!m.started) return { loaded: false, reason: notStarted(m) };
      if (manager.ffmpegError) return { loaded: false, reason: manager.ffmpegError };
      const s = manager.summary();
      return { loaded: true, reason: `${manager.ffmpegInfo?.version ?? 'ffmpeg'}; ${s.running}/${s.total} camera(s) running; decode preset ${m.ctx.profile.ffmpeg.hwaccel}` };
    },
  }),
  health: (manager, m) => {
    if (!m.started) return { ok: false, detail: notStarted(m) };
    if (manager.ffmpegError) return { ok: false, detail: manager.ffmpegError };
    const s = manager.summary();
    const problems = s.problems.length ? `; not running: ${s.problems.join('; ')}` : '';
    const detail = `${s.running}/${s.total} camera(s) running${s.down ? `, ${s.down} down` : ''}${problems}`;
    // A camera down (failed or restarting) makes the module degraded and the box unhealthy
    // (docs/video.md, "Health"); the other cameras keep working. An ended file is not down.
    return { ok: s.down === 0, detail, ...(s.problems.length ? { degraded: `not running: ${s.problems.join('; ')}` } : {}) };
  },
  routes: (scope, manager, { app }) => {
    const person = app.person;
    const trackingState = () => (person.available ? { tracking: true, detail: 'person detection and ByteTrack tracking' } : { tracking: false, detail: person.unavailableReason() });
    videoRoutes(scope, () => manager, trackingState);
  },
});

function notStarted({ startFailure }: ModuleRuntime): string {
  return startFailure ? `camera manager failed to start: ${startFailure}` : 'camera manager not started';
}
