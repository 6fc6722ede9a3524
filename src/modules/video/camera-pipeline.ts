import type { Logger } from 'pino';
import type { EventBus } from '../../core/event-bus.js';
import type { TrackedPerson } from '../person/bytetrack.js';
import type { PersonService } from '../person/person-service.js';
import type { CameraCounting, CountEvent } from './counting/camera-counting.js';
import type { Frame, RateMeter } from './frame-ring.js';

/**
 * Something else that wants a camera's frames (faces on frames): called after
 * tracking with the frame's confirmed tracks (null when person tracking is off).
 * Must return quickly; heavy work is its own business to schedule.
 */
export interface FrameConsumer {
  name: string;
  onFrame(cameraId: string, frame: Frame, tracks: readonly TrackedPerson[] | null, removed: readonly number[]): void;
  release(cameraId: string): void;
}

export interface PipelineDeps {
  cameraId: string;
  log: Logger;
  bus: EventBus;
  person: PersonService;
  counting: CameraCounting;
  processed: RateMeter;
  consumers: readonly FrameConsumer[];
  /** Stores (totals and history) and publishes what one count changed. */
  persistCounts: (ev: CountEvent) => void;
}

const ERROR_EVERY_MS = 60_000;

/**
 * One camera's frame path: detection through the shared scheduler (a frame
 * superseded while the detector was busy is skipped), ByteTrack, the counting
 * rules, then the events and any extra consumers. Runs off the frame callback;
 * nothing here blocks the event loop for longer than a tracker update.
 */
export class CameraPipeline {
  private closed = false;
  private lastErrorAt = 0;
  /** The newest frame's detection -> tracking -> counting chain (end of stream waits for it). */
  private pending: Promise<void> = Promise.resolve();
  /** Frames skipped because a newer frame of this camera superseded them before detection (metrics). */
  dropped = 0;

  constructor(private readonly d: PipelineDeps) {}

  onFrame(frame: Frame): void {
    if (this.closed) return;
    const { person, cameraId } = this.d;
    if (!person.available) {
      this.feedConsumers(frame, null, []);
      return;
    }
    this.pending = person
      .detectForCamera(cameraId, frame)
      .then((detections) => {
        if (this.closed) return;
        if (!detections) {
          this.dropped++;
          return;
        }
        const { tracks, removed } = person.trackerFor(cameraId).update(detections);
        this.d.processed.tick(Date.now());
        this.publish(this.d.counting.process(tracks, removed, frame.width, frame.height));
        this.feedConsumers(frame, tracks, removed);
      })
      .catch((err: unknown) => this.report(err));
  }

  /**
   * The source ended (a file played out): once the last frame is counted, every track
   * still alive is gone for good, so people inside a zone exit and the tracker starts
   * afresh should the camera run again.
   */
  async endOfStream(): Promise<void> {
    await this.pending;
    if (this.closed) return;
    this.publish(this.d.counting.endOfStream());
    this.d.person.release(this.d.cameraId);
  }

  private publish(events: CountEvent[]): void {
    for (const ev of events) {
      this.d.bus.emit(ev.type, 'video', ev.data, this.d.cameraId);
      this.d.persistCounts(ev);
    }
  }

  close(): void {
    this.closed = true;
    this.d.person.release(this.d.cameraId);
    for (const c of this.d.consumers) c.release(this.d.cameraId);
  }

  private feedConsumers(frame: Frame, tracks: readonly TrackedPerson[] | null, removed: readonly number[]): void {
    for (const c of this.d.consumers) {
      try {
        c.onFrame(this.d.cameraId, frame, tracks, removed);
      } catch (err) {
        this.d.log.error({ err, consumer: c.name }, 'frame consumer threw');
      }
    }
  }

  /** Detection failures are logged and raised as system_error, at most once a minute per camera. */
  private report(err: unknown): void {
    const now = Date.now();
    if (now - this.lastErrorAt < ERROR_EVERY_MS) return;
    this.lastErrorAt = now;
    const message = `person detection failed on camera ${this.d.cameraId}: ${(err as Error).message}`;
    this.d.log.error({ err }, message);
    this.d.bus.emit('system_error', 'person', { module: 'person', message, camera_id: this.d.cameraId }, this.d.cameraId);
  }
}
