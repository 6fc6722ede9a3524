import type { Logger } from 'pino';
import sharp from 'sharp';
import type { VigilConfig } from '../../config/schema.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../../core/errors.js';
import type { EventBus } from '../../core/event-bus.js';
import type { HwProfile } from '../../runtime/hw-profile.js';
import type { PersonService } from '../person/person-service.js';
import { filePath, parseCameraSource, type CameraSource } from './camera-source.js';
import { probeVideoFile, resolveFileSource } from './file-source-policy.js';
import { CameraStream, type CameraStatus, type StreamSettings } from './camera-stream.js';
import { CameraCounting } from './counting/camera-counting.js';
import { checkId, makeLine, makeZone, type CountingRule, type LineCounts, type LineInput, type ZoneCounts, type ZoneInput } from './counting/rules.js';
import type { FfmpegInfo } from './ffmpeg-binary.js';
import { RateMeter, type Frame } from './frame-ring.js';
import type { VideoStore, StoredCamera } from './video-store.js';
import { CameraPipeline, type FrameConsumer } from './camera-pipeline.js';
import { VideoMqttState } from './counts-mqtt.js';
import { BASE_BUCKET_MS, BUCKETS, bucketStart, type BucketName } from './count-history.js';

/** The Camera object of the spec plus documented extras. */
export interface CameraView {
  camera_id: string;
  source: string;
  is_running: boolean;
  fps: number;
  frame_count: number;
  status: CameraStatus;
  last_error: string | null;
  processed_fps: number;
  decoder: string;
  loop: boolean;
}

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

export interface RuleView {
  rule: CountingRule;
  counts: LineCounts | ZoneCounts;
}

interface Camera {
  stored: StoredCamera;
  source: CameraSource;
  stream: CameraStream;
  counting: CameraCounting;
  pipeline: CameraPipeline;
  processed: RateMeter;
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
  private bucketTimer: NodeJS.Timeout | null = null;

  constructor(private readonly d: ManagerDeps) {
    this.consumers = d.consumers ?? [];
    this.mqtt = d.mqttState ?? new VideoMqttState(undefined);
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
    await this.pruneHistory(Date.now());
    this.scheduleBucketClose();
  }

  // ---- count history ----

  /** Time-bucketed counts of a camera (counts/history). */
  history(cameraId: string, from: number, to: number, bucket: BucketName, limit: number, ruleId?: string) {
    const camera = this.require(cameraId);
    if (ruleId && !camera.counting.has(ruleId)) throw new NotFoundError('RULE_NOT_FOUND', `camera ${cameraId} has no rule ${ruleId}`, { rule_id: ruleId });
    return this.d.store.history.query(cameraId, from, to, BUCKETS[bucket], limit, ruleId);
  }

  private scheduleBucketClose(): void {
    const now = Date.now();
    const closes = bucketStart(now) + BASE_BUCKET_MS;
    // A little past the boundary, so that the clock has surely moved into the next bucket.
    this.bucketTimer = setTimeout(() => {
      this.closeBuckets(closes - BASE_BUCKET_MS, Date.now()).catch((err: unknown) => this.d.log.error({ err }, 'closing count buckets failed'));
      this.scheduleBucketClose();
    }, closes - now + 250);
    this.bucketTimer.unref();
  }

  /**
   * The bucket that started at `startMs` is over: each rule's counts in it go out as
   * retained MQTT state (zeros included: a quiet quarter hour is news too); a zone with
   * people inside starts the next bucket with them as its peak; old buckets go.
   */
  async closeBuckets(startMs: number, now: number): Promise<void> {
    for (const c of this.cameras.values()) {
      const id = c.stored.camera_id;
      for (const rule of c.counting.rules()) {
        this.mqtt.bucket(id, rule, startMs, startMs + BASE_BUCKET_MS, this.d.store.history.get(id, rule, startMs));
        const occ = rule.type === 'zone' ? ((c.counting.countsOf(rule.rule_id) as ZoneCounts).occupancy ?? 0) : 0;
        // A refused write (507 on a full disk) costs this zone's carried-over peak, not
        // the other rules' bucket messages.
        if (occ > 0) await this.d.store.history.add(id, rule, null, occ, now).catch((err: unknown) => this.d.log.error({ err, camera_id: id, rule_id: rule.rule_id }, 'could not carry zone occupancy into the new bucket'));
      }
    }
    await this.pruneHistory(now);
  }

  private async pruneHistory(now: number): Promise<void> {
    const cutoff = now - this.d.config.video.count_history_days * 86_400_000;
    // Pruning is a write the storage guard refuses on a full disk: the module still
    // starts, and the next bucket close tries again.
    try {
      const n = await this.d.store.history.prune([...this.cameras.keys()], cutoff);
      if (n > 0) this.d.log.info({ buckets: n }, 'count history past its retention deleted');
    } catch (err) {
      this.d.log.error({ err }, 'pruning count history failed; retried at the next bucket close');
    }
  }

  async stop(): Promise<void> {
    if (this.bucketTimer) clearTimeout(this.bucketTimer);
    this.bucketTimer = null;
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
    this.mqtt.clearCamera(cameraId, camera.counting.rules().map((r) => r.rule_id));
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

  async addRule(cameraId: string, type: 'line', input: LineInput): Promise<RuleView>;
  async addRule(cameraId: string, type: 'zone', input: ZoneInput): Promise<RuleView>;
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
    const counts = camera.counting.countsOf(rule.rule_id)!;
    this.mqtt.counts(cameraId, rule, counts);
    return { rule, counts };
  }

  rules(cameraId: string, type?: 'line' | 'zone'): RuleView[] {
    const c = this.require(cameraId).counting;
    return c
      .rules()
      .filter((r) => !type || r.type === type)
      .map((rule) => ({ rule, counts: c.countsOf(rule.rule_id)! }));
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
      await this.d.store.putCounts(cameraId, id, camera.counting.storedCounts(id)!);
      this.publishCounts(cameraId, camera.counting, id);
    }
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
        if (counts) this.d.store.putCounts(id, ruleId, counts).catch((err: unknown) => log.error({ err, rule_id: ruleId }, 'could not persist counts'));
        const what = ev.type === 'line_crossed' ? ev.data.direction : ev.type === 'person_entered' ? 'entered' : 'exited';
        const occupancy = ev.type === 'line_crossed' ? 0 : ev.data.counts.occupancy;
        this.d.store.history.add(id, ev.rule, what, occupancy, Date.now()).catch((err: unknown) => log.error({ err, rule_id: ruleId }, 'could not persist count history'));
        this.publishCounts(id, counting, ruleId);
      },
    });
    for (const rule of counting.rules()) this.publishCounts(id, counting, rule.rule_id);
    const stream: CameraStream = new CameraStream(source, this.settings(stored.loop), log, {
      onFrame: (frame: Frame) => pipeline.onFrame(frame),
      onStatus: (status, reason) => {
        this.mqtt.status(id, status, status === 'running' || status === 'starting', reason ?? stream.lastError);
        if (status === 'ended' && !ended) void this.onEnded(camera);
      },
      onGiveUp: (reason) => {
        this.d.bus.emit('system_error', 'video', { module: 'video', message: `camera ${id}: ${reason}`, camera_id: id }, id);
      },
    });
    const camera: Camera = { stored, source, stream, counting, pipeline, processed };
    this.cameras.set(id, camera);
    // A file that had played to its end before a restart is not replayed: its people were counted.
    const ended = stored.ended_at !== undefined && source.kind === 'file' && !stored.loop;
    if (ended) stream.restoreEnded(`end of file after ${stored.ended_frames ?? 0} frames (at ${stored.ended_at}); not replayed after a restart`);
    else stream.start();
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
    const rule = counting.rules().find((r) => r.rule_id === ruleId);
    const counts = counting.countsOf(ruleId);
    if (rule && counts) this.mqtt.counts(cameraId, rule, counts);
  }

  private async halt(camera: Camera): Promise<void> {
    await camera.stream.stop();
    camera.pipeline.close();
  }

  private view(c: Camera): CameraView {
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
    };
  }

  /** Per-camera figures and rule counts, read by the metrics scrape and the MQTT statistics. */
  stats(): CameraStats[] {
    const now = Date.now();
    return [...this.cameras.values()].map((c) => ({
      camera_id: c.stored.camera_id,
      status: c.stream.status,
      frames: c.stream.frameCount,
      fps: c.stream.fps(now),
      processed_fps: c.stream.isRunning ? c.processed.rate(now) : 0,
      dropped: c.pipeline.dropped,
      restarts: c.stream.restarts,
      rules: c.counting.rules().map((rule) => ({ rule, counts: c.counting.countsOf(rule.rule_id)! })),
    }));
  }

  /**
   * For health: how many cameras run, which do not and why, and how many are down: a
   * camera `failed` (gave up after too many restarts) or `restarting` (its stream broke)
   * is down; starting, running and ended (a file played out) cameras are not.
   */
  summary(): { total: number; running: number; down: number; problems: string[] } {
    const problems: string[] = [];
    let running = 0;
    let down = 0;
    for (const c of this.cameras.values()) {
      if (c.stream.isRunning) running++;
      else if (c.stream.status !== 'ended') problems.push(`${c.stored.camera_id}: ${c.stream.status}${c.stream.lastError ? ` (${c.stream.lastError})` : ''}`);
      if (c.stream.status === 'failed' || c.stream.status === 'restarting') down++;
    }
    return { total: this.cameras.size, running, down, problems };
  }
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
