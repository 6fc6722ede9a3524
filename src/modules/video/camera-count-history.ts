import type { Logger } from 'pino';
import type { VigilConfig } from '../../config/schema.js';
import { NotFoundError } from '../../core/errors.js';
import type { CameraCounting } from './counting/camera-counting.js';
import { BASE_BUCKET_MS, BUCKETS, bucketStart, type BucketName } from './count-history.js';
import type { VideoMqttState } from './counts-mqtt.js';
import type { VideoStore } from './video-store.js';

export interface CountHistoryDeps {
  config: VigilConfig;
  log: Logger;
  store: VideoStore;
  mqtt: VideoMqttState;
  /** The cameras now, by id: their counting state. */
  cameras: () => Map<string, CameraCounting>;
}

/**
 * The count history of every camera: the clock that closes each base bucket (its counts
 * published as retained MQTT state, a zone's occupancy carried into the next bucket),
 * retention, and the counts/history query. The buckets themselves are written by the
 * camera pipeline as counts happen (video-store's history).
 */
export class CameraCountHistory {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly d: CountHistoryDeps) {}

  async start(): Promise<void> {
    await this.prune(Date.now());
    this.schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Time-bucketed counts of a camera (counts/history); the caller checked the camera exists. */
  query(cameraId: string, counting: CameraCounting, from: number, to: number, bucket: BucketName, limit: number, ruleId?: string) {
    if (ruleId && !counting.has(ruleId)) throw new NotFoundError('RULE_NOT_FOUND', `camera ${cameraId} has no rule ${ruleId}`, { rule_id: ruleId });
    return this.d.store.history.query(cameraId, from, to, BUCKETS[bucket], limit, ruleId);
  }

  private schedule(): void {
    const now = Date.now();
    const closes = bucketStart(now) + BASE_BUCKET_MS;
    // A little past the boundary, so that the clock has surely moved into the next bucket.
    this.timer = setTimeout(
      () => {
        this.closeBuckets(closes - BASE_BUCKET_MS, Date.now()).catch((err: unknown) => this.d.log.error({ err }, 'closing count buckets failed'));
        this.schedule();
      },
      closes - now + 250,
    );
    this.timer.unref();
  }

  /**
   * The bucket that started at `startMs` is over: each rule's counts in it go out as
   * retained MQTT state (zeros included: a quiet quarter hour is news too); a zone with
   * people inside starts the next bucket with them as its peak; old buckets go.
   */
  async closeBuckets(startMs: number, now: number): Promise<void> {
    for (const [id, counting] of this.d.cameras()) {
      for (const { rule, counts } of counting.views()) {
        this.d.mqtt.bucket(id, rule, startMs, startMs + BASE_BUCKET_MS, this.d.store.history.get(id, rule, startMs));
        const occ = 'occupancy' in counts ? counts.occupancy : 0;
        // A refused write (507 on a full disk) costs this zone's carried-over peak, not
        // the other rules' bucket messages.
        if (occ > 0)
          await this.d.store.history
            .add(id, rule, null, occ, now)
            .catch((err: unknown) => this.d.log.error({ err, camera_id: id, rule_id: rule.rule_id }, 'could not carry zone occupancy into the new bucket'));
      }
    }
    await this.prune(now);
  }

  private async prune(now: number): Promise<void> {
    const cutoff = now - this.d.config.video.count_history_days * 86_400_000;
    // Pruning is a write the storage guard refuses on a full disk: the module still
    // starts, and the next bucket close tries again.
    try {
      const n = await this.d.store.history.prune([...this.d.cameras().keys()], cutoff);
      if (n > 0) this.d.log.info({ buckets: n }, 'count history past its retention deleted');
    } catch (err) {
      this.d.log.error({ err }, 'pruning count history failed; retried at the next bucket close');
    }
  }
}
