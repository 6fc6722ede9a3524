import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fp from 'fastify-plugin';
import { ModuleDisabledError } from '../../core/errors.js';
import { CameraManager } from './camera-manager.js';
import type { FrameConsumer } from './camera-pipeline.js';
import { FaceOnFrames, watchlistSearch } from './face-on-frames.js';
import { VideoMqttState, wireVideoMqtt } from './counts-mqtt.js';
import { ffmpegPath, probeFfmpeg } from './ffmpeg-binary.js';
import { videoRoutes } from './routes.js';
import { registerVideoMetrics } from './video-metrics.js';
import { VideoStore, videoStoreDir } from './video-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Present when video.enabled. */
    cameraManager?: CameraManager;
  }
}

/**
 * Video module: cameras (supervised ffmpeg streams) feeding person detection,
 * tracking and line/zone counting. With video.enabled false the routes answer
 * 503 MODULE_DISABLED and health leaves the module out.
 */
export default fp(
  async (app) => {
    const { config, log, bus, status, lifecycle, profile } = app.vigil;
    const person = app.personService;
    const trackingState = () => (person.available ? { tracking: true, detail: 'person detection and ByteTrack tracking' } : { tracking: false, detail: person.unavailableReason() });

    if (!config.video.enabled) {
      status.setComponent('camera_manager', () => ({ loaded: false, reason: 'disabled (video.enabled: false)' }));
      await app.register(async (scope) => {
        scope.addHook('onRequest', async () => {
          throw new ModuleDisabledError('video');
        });
        videoRoutes(scope, () => {
          throw new ModuleDisabledError('video');
        }, trackingState);
      });
      return;
    }

    const store = new VideoStore(videoStoreDir(config.server.data_dir), app.vigil.storage);
    const consumers: FrameConsumer[] = [];
    if (config.video.track_faces && app.hasDecorator('faceService')) {
      const identify = app.hasDecorator('identity') && config.identity.enabled ? watchlistSearch(app.identity, config.video.face_match_threshold) : undefined;
      consumers.push(
        new FaceOnFrames({ faces: app.faceService, bus, log: log.child({ module: 'video', part: 'faces' }), faceFps: config.video.face_fps, identify }),
      );
    }
    // Counts and camera status as retained MQTT state, over the events module's connection.
    const mqttState = new VideoMqttState(app.hasDecorator('mqtt') ? app.mqtt : undefined);
    const manager = new CameraManager({ config, profile, log: log.child({ module: 'video' }), bus, store, person, consumers, mqttState });
    app.decorate('cameraManager', manager);
    registerVideoMetrics(app.vigil.metrics, manager);
    if (app.hasDecorator('mqtt')) wireVideoMqtt(app.mqtt, manager);
    let started = false;

    lifecycle.add({
      name: 'video-cameras',
      start: async () => {
        store.open();
        // The default root is created so an operator sees where file sources belong.
        const media = join(config.server.data_dir, 'media');
        if (config.video.file_roots.includes(media)) mkdirSync(media, { recursive: true });
        const path = ffmpegPath(profile);
        const info = await probeFfmpeg(path).catch((err: Error) => err);
        if (info instanceof Error) log.error({ err: info.message }, 'ffmpeg unavailable: cameras cannot run');
        await manager.start(info);
        started = true;
      },
      stop: async () => {
        await manager.stop();
        await store.close();
      },
    });

    // A start that threw (the camera store cannot open, say) is remembered by the lifecycle;
    // health and /admin/models say why instead of "not started".
    const notStarted = () => {
      const why = lifecycle.failures.get('video-cameras');
      return why ? `camera manager failed to start: ${why}` : 'camera manager not started';
    };
    status.setComponent('camera_manager', () => {
      if (!started) return { loaded: false, reason: notStarted() };
      if (manager.ffmpegError) return { loaded: false, reason: manager.ffmpegError };
      const s = manager.summary();
      return { loaded: true, reason: `${manager.ffmpegInfo?.version ?? 'ffmpeg'}; ${s.running}/${s.total} camera(s) running; decode preset ${profile.ffmpeg.hwaccel}` };
    });
    status.setModule('video', () => {
      if (!started) return { ok: false, detail: notStarted() };
      if (manager.ffmpegError) return { ok: false, detail: manager.ffmpegError };
      const s = manager.summary();
      const problems = s.problems.length ? `; not running: ${s.problems.join('; ')}` : '';
      const detail = `${s.running}/${s.total} camera(s) running${s.down ? `, ${s.down} down` : ''}${problems}`;
      // A camera down (failed or restarting) makes the module degraded and the box unhealthy
      // (docs/video.md, "Health"); the other cameras keep working. An ended file is not down.
      return { ok: s.down === 0, detail, ...(s.problems.length ? { degraded: `not running: ${s.problems.join('; ')}` } : {}) };
    });

    await app.register(async (scope) => videoRoutes(scope, () => manager, trackingState));
  },
  { name: 'vigil-video', dependencies: ['vigil-core', 'vigil-person'] },
);
