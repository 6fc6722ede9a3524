import type { VigilConfig } from '../../config/schema.js';
import type { ModelRegistry } from '../../runtime/model-registry.js';
import { ByteTracker, defaultTrackerSettings } from './bytetrack.js';
import { DetectionScheduler } from './detection-scheduler.js';
import { YoloxPersonDetector, type Detection, type RgbFrame } from './yolox-detector.js';

export const PERSON_MODEL = 'person_det_yolox_nano';
/** Detections below this never reach the tracker (ByteTrack's low threshold). */
const LOW_SCORE = 0.1;

/**
 * What the video module uses of the person module: detection through one shared,
 * fair scheduler and a ByteTrack tracker per camera. Available once the detector
 * model has loaded; until then (or when it cannot) `available` says why not.
 */
export class PersonService {
  private detector: YoloxPersonDetector | null = null;
  private scheduler: DetectionScheduler<RgbFrame, Detection[]> | null = null;
  private readonly trackers = new Map<string, ByteTracker>();

  constructor(
    private readonly config: VigilConfig,
    private readonly models: ModelRegistry,
  ) {}

  /** Called once the model registry has the detector (or has failed to load it). */
  attach(): void {
    const model = this.models.tryGet(PERSON_MODEL);
    if (!model) return;
    const longSide = this.config.person.detector_input;
    const detector = new YoloxPersonDetector(model, longSide > 0 ? { longSide } : undefined);
    this.detector = detector;
    this.scheduler = new DetectionScheduler((frame) => detector.detect(frame, LOW_SCORE), this.config.person.detector_concurrency);
  }

  get available(): boolean {
    return this.detector !== null;
  }

  /** Why detection is not available, for status and errors. */
  unavailableReason(): string {
    if (!this.config.person.enabled) return 'person detection is disabled (person.enabled: false)';
    return this.models.status(PERSON_MODEL)?.reason ?? 'the person detector has not loaded';
  }

  /** The detector's input box (its long side): frames are scaled to fit inside it. */
  inputSize(): number {
    const longSide = this.config.person.detector_input;
    return this.detector?.inputSize ?? (longSide > 0 ? longSide : Number(this.models.tryGet(PERSON_MODEL)?.entry.inputs[0]?.shape[2] ?? 416));
  }

  /** Latest-frame-wins detection for one camera; null when the frame was superseded or detection is off. */
  detectForCamera(cameraId: string, frame: RgbFrame): Promise<Detection[] | null> {
    if (!this.scheduler) return Promise.resolve(null);
    return this.scheduler.submit(cameraId, frame);
  }

  /** A direct detection (benchmarks, evaluation), outside the camera scheduler. */
  detect(frame: RgbFrame): Promise<Detection[]> {
    if (!this.detector) throw new Error(this.unavailableReason());
    return this.detector.detect(frame, LOW_SCORE);
  }

  trackerFor(cameraId: string): ByteTracker {
    let t = this.trackers.get(cameraId);
    if (!t) {
      t = new ByteTracker(defaultTrackerSettings(this.config.person.confidence_threshold, this.config.person.track_buffer_frames));
      this.trackers.set(cameraId, t);
    }
    return t;
  }

  release(cameraId: string): void {
    this.trackers.delete(cameraId);
    this.scheduler?.cancel(cameraId);
  }

  close(): void {
    this.scheduler?.close();
    this.trackers.clear();
  }

  /** For /admin/models: what the tracker is doing right now. */
  trackerSummary(): string {
    let tracks = 0;
    for (const t of this.trackers.values()) tracks += t.activeCount;
    const s = this.scheduler?.stats;
    return `ByteTrack (Kalman filter, two-stage association): ${this.trackers.size} camera(s), ${tracks} active track(s)${
      s ? `; ${s.processed} frames detected, ${s.dropped} superseded while the detector was busy` : ''
    }`;
  }
}
