import type { Logger } from 'pino';
import sharp from 'sharp';
import type { VigilConfig } from '../../config/schema.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../../core/errors.js';
import type { EventBus } from '../../core/event-bus.js';
import type { HwProfile } from '../../runtime/hw-profile.js';
import type { PersonService } from '../person/person-service.js';
import { filePath, parseCameraSource, type CameraSource } from './camera-source.js';
import { probeVideoFile, resolveFileSource } from './file-source-policy.js';
import { CameraStream, type StreamSettings } from './camera-stream.js';
import { CameraCounting } from './counting/camera-counting.js';
import { checkId, makeLine, makeZone, type LineInput, type LineView, type RuleView, type ZoneInput, type ZoneView } from './counting/rules.js';
import type { FfmpegInfo } from './ffmpeg-binary.js';
import { RateMeter, type Frame } from './frame-ring.js';
import type { VideoStore, StoredCamera } from './video-store.js';
import { CameraPipeline, type FrameConsumer } from './camera-pipeline.js';
import { VideoMqttState } from './counts-mqtt.js';
import type { BucketName } from './count-history.js';
import { CameraCountHistory } from './camera-count-history.js';
import { cameraStats, cameraSummary, cameraView, type CameraStats, type CameraSummary, type CameraView } from './camera-stats.js';

export type { CameraStats, CameraView } from './camera-stats.js';

interface Camera {
  stored: StoredCamera;
  source: CameraSource;
  stream: CameraStream;
  counting: CameraCounting;
  pipeline: CameraPipeline;
  processed: RateMeter;
  /** The last enable/disable in progress: the next waits for it, so stop and start never interleave. */
  switching: Promise<unknown>;
}

export interface ManagerDeps {
  config: VigilConfig;
  profile: HwProfile;
  log: Logger;
  bus: EventBus;
  store: VideoStore;
  person: PersonService;
  /** Extra per-frame consumers (faces on frames), added by other modules. */
  consumers?: FrameConsumer[];
  /** Retained MQTT state (counts, camera status); absent or disabled: nothing is published. */
  mqttState?: VideoMqttState;
}

/**
 * Owns every camera: validation, persistence, the supervised ffmpeg stream and the
 * detection -> tracking -> counting pipeline of each. Cameras in the store are
 * started with the module and stopped (stop ladder) with it.
 */
export class CameraManager {
  private readonly cameras = new Map<string, Camera>();
  /** Ids being added while their file is probed (so two adds of one id cannot both pass). */
  private readonly adding = new Set<string>();
  private ffmpeg: FfmpegInfo | null = null;
  ffmpegError: string | null = null;
  readonly consumers: FrameConsumer[];
  private readonly mqtt: VideoMqttState;
  private readonly countHistory: CameraCountHistory;

  constructor(private readonly d: ManagerDeps) {
    this.consumers = d.consumers ?? [];
    this.mqtt = d.mqttState ?? new VideoMqttState(undefined);
    const cameras = () => new Map([...this.cameras].map(([id, c]) => [id, c.counting]));
    this.countHistory = new CameraCountHistory({ config: d.config, log: d.log, store: d.store, mqtt: this.mqtt, cameras });
  }

  /** The cameras' and rules' LMDB store (the module opens it at start and closes it at stop). */
  get store(): VideoStore {
    return this.d.store;
  }

  /** Called at module start with the probed ffmpeg (or why it does not run). */
  async start(ffmpeg: FfmpegInfo | Error): Promise<void> {
    if (ffmpeg instanceof Error) this.ffmpegError = ffmpeg.message;
    else this.ffmpeg = ffmpeg;
    for (const stored of this.d.store.cameras()) {
      try {
        this.launch(stored, parseCameraSource(stored.source));
      } catch (err) {
        this.d.log.error({ camera_id: stored.camera_id, err: (err as Error).message }, 'stored camera could not be restored');
      }
    }
    await this.countHistory.start();
  }

  // ---- count history (camera-count-history.ts) ----

  /** Time-bucketed counts of a camera (counts/history). */
  history(cameraId: string, from: number, to: number, bucket: BucketName, limit: number, ruleId?: string) {
    return this.countHistory.query(cameraId, this.require(cameraId).counting, from, to, bucket, limit, ruleId);
  }

  /** Closes the bucket that started at `startMs` (called by the bucket clock; tests call it directly). */
  closeBuckets(startMs: number, now: number): Promise<void> {
    return this.countHistory.closeBuckets(startMs, now);
  }

  async stop(): Promise<void> {
    this.countHistory.stop();
    await Promise.all([...this.cameras.values()].map((c) => this.halt(c)));
    this.cameras.clear();
  }

  get ffmpegInfo(): FfmpegInfo | null {
    return this.ffmpeg;
  }

  list(): CameraView[] {
    return [...this.cameras.values()].map((c) => this.view(c));
  }

  get(cameraId: string): CameraView {
    return this.view(this.require(cameraId));
  }

  async add(input: { camera_id: string; source: string; loop?: boolean }): Promise<CameraView> {
    checkId(input.camera_id, 'camera_id');
    if (this.cameras.has(input.camera_id) || this.adding.has(input.camera_id)) {
      throw new ConflictError('CAMERA_EXISTS', `camera ${input.camera_id} already exists`, { camera_id: input.camera_id });
    }
    const source = parseCameraSource(input.source);
    const max = this.d.config.video.max_cameras;
    if (this.cameras.size + this.adding.size >= max) throw new UnprocessableError('CAMERA_LIMIT', `at most ${max} cameras (video.max_cameras)`);
    const path = filePath(source);
    if (path !== undefined) {
      const real = resolveFileSource(path, this.d.config.video.file_roots);
      if (real !== null && this.ffmpeg) {
        this.adding.add(input.camera_id);
        try {
          await probeVideoFile(this.ffmpeg.path, real);
        } finally {
          this.adding.delete(input.camera_id);
        }
      }
    }
    const stored: StoredCamera = { camera_id: input.camera_id, source: source.raw, loop: input.loop ?? false, created_at: new Date().toISOString() };
    // Claim the id before the first await, so two concurrent adds cannot both pass the check.
    const camera = this.launch(stored, source);
    try {
      await this.d.store.putCamera(stored);
    } catch (err) {
      await this.halt(camera);
      this.cameras.delete(stored.camera_id);
      throw err;
    }
    this.d.log.info({ camera_id: stored.camera_id, source: source.display, kind: source.kind }, 'camera added');
    return this.view(camera);
  }

  async remove(cameraId: string): Promise<void> {
    const camera = this.require(cameraId);
    this.cameras.delete(cameraId);
    await this.halt(camera);
    await this.d.store.removeCamera(cameraId);
    this.mqtt.clearCamera(
      cameraId,
      camera.counting.rules().map((r) => r.rule_id),
    );
    this.d.log.info({ camera_id: cameraId }, 'camera removed');
  }

  /** The newest frame as JPEG, or 404 when the camera is unknown or has none. */
  async snapshot(cameraId: string): Promise<Buffer> {
    const frame = this.require(cameraId).stream.ring.latest();
    if (!frame) throw new NotFoundError('NO_FRAME', `camera ${cameraId} has no frame yet`, { camera_id: cameraId });
    return sharp(frame.data, { raw: { width: frame.width, height: frame.height, channels: 3 } })
      .jpeg({ quality: 85 })
      .toBuffer();
  }

  // ---- counting rules ----

  async addRule(cameraId: string, type: 'line', input: LineInput): Promise<LineView>;
  async addRule(cameraId: string, type: 'zone', input: ZoneInput): Promise<ZoneView>;
  async addRule(cameraId: string, type: 'line' | 'zone', input: LineInput | ZoneInput): Promise<RuleView> {
    const camera = this.require(cameraId);
    const rule = type === 'line' ? makeLine(input as LineInput) : makeZone(input as ZoneInput);
    if (camera.counting.has(rule.rule_id)) {
      throw new ConflictError('RULE_EXISTS', `camera ${cameraId} already has a rule ${rule.rule_id}`, { rule_id: rule.rule_id });
    }
    camera.counting.setRule(rule);
    try {
      await this.d.store.putRule(cameraId, rule);
    } catch (err) {
      camera.counting.removeRule(rule.rule_id);
      throw err;
    }
    const view = camera.counting.view(rule.rule_id)!;
    this.mqtt.counts(cameraId, rule, view.counts);
    return view;
  }

  rules(cameraId: string, type: 'line'): LineView[];
  rules(cameraId: string, type: 'zone'): ZoneView[];
  rules(cameraId: string): RuleView[];
  rules(cameraId: string, type?: 'line' | 'zone'): RuleView[] {
    return this.require(cameraId)
      .counting.views()
      .filter((v) => !type || v.rule.type === type);
  }

  async removeRule(cameraId: string, type: 'line' | 'zone', ruleId: string): Promise<void> {
    const camera = this.require(cameraId);
    const rule = camera.counting.rules().find((r) => r.rule_id === ruleId && r.type === type);
    if (!rule) throw new NotFoundError('RULE_NOT_FOUND', `camera ${cameraId} has no ${type} ${ruleId}`, { rule_id: ruleId });
    camera.counting.removeRule(ruleId);
    await this.d.store.removeRule(cameraId, ruleId);
    this.mqtt.clearRule(cameraId, ruleId);
  }

  async resetCounts(cameraId: string, ruleId?: string): Promise<void> {
    const camera = this.require(cameraId);
    if (ruleId && !camera.counting.has(ruleId)) throw new NotFoundError('RULE_NOT_FOUND', `camera ${cameraId} has no rule ${ruleId}`, { rule_id: ruleId });
    for (const id of camera.counting.reset(ruleId)) {
      const zero = camera.counting.storedCounts(id)!;
      await this.d.store.putCounts(cameraId, id, zero);
      camera.counting.markCommitted(id, zero);
      this.publishCounts(cameraId, camera.counting, id);
    }
  }

  /**
   * Stops (enabled false) or starts again (true) a camera's stream without removing it; the
   * choice is stored, so a disabled camera stays stopped across restarts. Disabling ends the
   * live tracks as the end of a file does (zone occupancy goes back to what is in view: nobody);
   * enabling a file that had played out plays it again. Already in that state: nothing changes.
   * REST (POST .../enable, .../disable) and the MQTT command topic both come here.
   */
  async setEnabled(cameraId: string, enabled: boolean): Promise<CameraView> {
    const camera = this.require(cameraId);
    const run = camera.switching.then(async () => {
      if (this.cameras.get(cameraId) !== camera) throw new NotFoundError('CAMERA_NOT_FOUND', `no camera ${cameraId}`, { camera_id: cameraId });
      if (!camera.stored.disabled === enabled) return;
      // Enabling also forgets that a file had played out: it plays again.
      const stored: StoredCamera = { ...camera.stored, disabled: !enabled };
      if (enabled) {
        delete stored.disabled;
        delete stored.ended_at;
        delete stored.ended_frames;
      }
      // Stored first: on a full disk the call fails (507) and the camera is left as it was.
      await this.d.store.putCamera(stored);
      camera.stored = stored;
      if (enabled) {
        camera.stream.start();
      } else {
        await camera.stream.stop();
        await camera.pipeline.endOfStream();
        camera.stream.restoreStopped('disabled');
      }
      this.d.log.info({ camera_id: cameraId }, enabled ? 'camera enabled' : 'camera disabled');
    });
    camera.switching = run.catch(() => undefined);
    await run;
    return this.view(camera);
  }

  // ---- internals ----

  private require(cameraId: string): Camera {
    const c = this.cameras.get(cameraId);
    if (!c) throw new NotFoundError('CAMERA_NOT_FOUND', `no camera ${cameraId}`, { camera_id: cameraId });
    return c;
  }

  private settings(loop: boolean): StreamSettings {
    const v = this.d.config.video;
    const size = this.d.person.inputSize();
    return {
      binary: this.ffmpeg?.path ?? '(ffmpeg unavailable)',
      caps: this.ffmpeg?.caps ?? { lavfMajor: 60 },
      decode: { hwaccel: this.d.profile.ffmpeg.hwaccel, ...(this.d.profile.ffmpeg.device ? { device: this.d.profile.ffmpeg.device } : {}) },
      box: { width: size, height: size },
      maxFps: v.max_fps,
      realtime: true,
      loop,
      rtspTimeoutMs: v.rtsp_timeout_seconds * 1000,
      decodeThreads: v.decode_threads,
      watchdogMs: v.watchdog_seconds * 1000,
      restart: {
        initialMs: v.restart_backoff_initial_seconds * 1000,
        maxMs: v.restart_backoff_max_seconds * 1000,
        maxRestarts: v.max_restarts,
        windowMs: v.restart_window_seconds * 1000,
      },
      failedRetryMs: v.failed_retry_seconds * 1000,
      stopStepMs: v.stop_timeout_seconds * 1000,
      bufferSize: v.buffer_size,
      fileRoots: v.file_roots,
    };
  }

  private launch(stored: StoredCamera, source: CameraSource): Camera {
    const id = stored.camera_id;
    const log = this.d.log.child({ camera_id: id });
    // Counting remembers a lost track as long as the tracker does.
    const counting = new CameraCounting({ reassociateFrames: this.d.config.person.track_buffer_frames });
    for (const { rule, counts } of this.d.store.rules(id)) counting.setRule(rule, counts);
    const processed = new RateMeter();
    const pipeline = new CameraPipeline({
      cameraId: id,
      log,
      bus: this.d.bus,
      person: this.d.person,
      counting,
      processed,
      consumers: this.consumers,
      persistCounts: (ev) => {
        const ruleId = ev.rule.rule_id;
        const counts = counting.storedCounts(ruleId);
        // The API and MQTT report a count once its write has committed (CameraCounting.view).
        if (counts) {
          this.d.store
            .putCounts(id, ruleId, counts)
            .then(() => {
              counting.markCommitted(ruleId, counts);
              this.publishCounts(id, counting, ruleId);
            })
            .catch((err: unknown) => log.error({ err, rule_id: ruleId }, 'could not persist counts'));
        }
        const what = ev.type === 'line_crossed' ? ev.data.direction : ev.type === 'person_entered' ? 'entered' : 'exited';
        const occupancy = ev.type === 'line_crossed' ? 0 : ev.data.counts.occupancy;
        this.d.store.history.add(id, ev.rule, what, occupancy, Date.now()).catch((err: unknown) => log.error({ err, rule_id: ruleId }, 'could not persist count history'));
      },
    });
    for (const rule of counting.rules()) this.publishCounts(id, counting, rule.rule_id);
    let restoring = false;
    const stream: CameraStream = new CameraStream(source, this.settings(stored.loop), log, {
      onFrame: (frame: Frame) => pipeline.onFrame(frame),
      onStatus: (status, reason) => {
        this.mqtt.status(id, status, status === 'running' || status === 'starting', reason ?? stream.lastError, !camera.stored.disabled);
        if (status === 'ended' && !restoring) void this.onEnded(camera);
      },
      onGiveUp: (reason) => {
        this.d.bus.emit('system_error', 'video', { module: 'video', message: `camera ${id}: ${reason}`, camera_id: id }, id);
      },
    });
    const camera: Camera = { stored, source, stream, counting, pipeline, processed, switching: Promise.resolve() };
    this.cameras.set(id, camera);
    // A file that had played to its end before a restart is not replayed: its people were counted.
    const ended = stored.ended_at !== undefined && source.kind === 'file' && !stored.loop;
    if (stored.disabled) stream.restoreStopped('disabled');
    else if (ended) {
      // Restored as ended, not ended now: nothing to count (a later replay after enable is).
      restoring = true;
      stream.restoreEnded(`end of file after ${stored.ended_frames ?? 0} frames (at ${stored.ended_at}); not replayed after a restart`);
      restoring = false;
    } else stream.start();
    return camera;
  }

  /** A file source played out: count the end of every live track, and remember it ended. */
  private async onEnded(camera: Camera): Promise<void> {
    const id = camera.stored.camera_id;
    try {
      await camera.pipeline.endOfStream();
      if (this.cameras.get(id) !== camera) return;
      camera.stored = { ...camera.stored, ended_at: new Date().toISOString(), ended_frames: camera.stream.frameCount };
      await this.d.store.putCamera(camera.stored);
    } catch (err) {
      this.d.log.error({ camera_id: id, err: (err as Error).message }, 'could not record the end of a file source');
    }
  }

  private publishCounts(cameraId: string, counting: CameraCounting, ruleId: string): void {
    const view = counting.view(ruleId);
    if (view) this.mqtt.counts(cameraId, view.rule, view.counts);
  }

  private async halt(camera: Camera): Promise<void> {
    await camera.stream.stop();
    camera.pipeline.close();
  }

  private view(c: Camera): CameraView {
    return cameraView(c);
  }

  /** Per-camera figures and rule counts, read by the metrics scrape and the MQTT statistics. */
  stats(): CameraStats[] {
    return cameraStats(this.cameras.values());
  }

  /** For health: how many cameras run, which do not and why, and how many are down (camera-stats.ts). */
  summary(): CameraSummary {
    return cameraSummary(this.cameras.values());
  }
}
