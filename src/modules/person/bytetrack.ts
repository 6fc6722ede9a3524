import { initiate, predict, update, type KalmanState } from './kalman-filter.js';
import { linearAssignment } from './linear-assignment.js';
import type { Detection } from './yolox-detector.js';
import { appearanceSimilarity, blendAppearance, type Appearance } from './appearance.js';

/** A detection with its colours (appearance.ts), when the caller computed them. */
export interface DescribedDetection extends Detection {
  look?: Appearance | null;
}

export interface TrackerSettings {
  /** ByteTrack's track_thresh: detections at or above it are "high" (person.confidence_threshold). */
  highThresh: number;
  /** Detections below this are ignored entirely (ByteTrack: 0.1). */
  lowThresh: number;
  /** A new track needs a detection at least this confident (ByteTrack: track_thresh + 0.1). */
  newTrackThresh: number;
  /** First-stage IoU-cost limit (ByteTrack match_thresh 0.8). */
  matchThresh: number;
  /** Lost tracks are kept for re-identification this many processed frames. */
  maxLostFrames: number;
  /**
   * Weight of direction consistency in the first association (OC-SORT's observation-centric
   * momentum, vdc_weight): a detection that lies the way a track was going is preferred over
   * one that would turn it round. 0: IoU alone, as ByteTrack.
   */
  directionWeight: number;
  /**
   * Weight of appearance in the first association: the cost of a track and a detection
   * that both have colours rises by this times (1 - their similarity). 0: positions alone.
   */
  appearanceWeight: number;
  /** Second-association IoU-cost limit for low-score detections (ByteTrack: 0.5, i.e. IoU at least 0.5). */
  secondMatchThresh: number;
}

export function defaultTrackerSettings(highThresh: number, maxLostFrames = 30): TrackerSettings {
  return { highThresh, lowThresh: 0.1, newTrackThresh: Math.min(0.95, highThresh + 0.1), matchThresh: 0.8, maxLostFrames, directionWeight: 0.2, appearanceWeight: 0, secondMatchThresh: 0.5 };
}

/** Frames between the two observations a track's direction is taken from (OC-SORT delta_t). */
const DIRECTION_SPAN = 3;

type TrackState = 'tracked' | 'lost' | 'removed';

/** A tracked person as consumers see it. */
export interface TrackedPerson {
  trackId: number;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  score: number;
  /** Frames this track has been matched in. */
  hits: number;
  /** The person's colours, a running mean over the frames they were seen unhidden (null: none yet). */
  look?: Appearance | null;
}

/** How far each unhidden sighting moves a track's running appearance. */
const LOOK_RATE = 0.2;

class STrack {
  trackId = 0;
  state: TrackState = 'tracked';
  activated = false;
  kf: KalmanState | null = null;
  frameId = 0;
  startFrame = 0;
  hits = 0;
  /** Recent observed box centres with their frame ids (newest last), for the direction of travel. */
  observed: [number, number, number][] = [];

  constructor(
    public tlwh: [number, number, number, number],
    public score: number,
    public look: Appearance | null = null,
  ) {}

  static fromDetection(d: DescribedDetection): STrack {
    return new STrack([d.x1, d.y1, d.x2 - d.x1, d.y2 - d.y1], d.score, d.look ? Float32Array.from(d.look) : null);
  }

  /** Current box: the filter's estimate once there is one. */
  box(): [number, number, number, number] {
    if (!this.kf) return this.tlwh;
    const m = this.kf.mean;
    const h = m[3]!;
    const w = m[2]! * h;
    return [m[0]! - w / 2, m[1]! - h / 2, w, h];
  }

  xyah(): [number, number, number, number] {
    const [x, y, w, h] = this.tlwh;
    return [x + w / 2, y + h / 2, w / Math.max(h, 1e-6), h];
  }

  predict(): void {
    if (!this.kf) return;
    if (this.state !== 'tracked') this.kf.mean[7] = 0;
    predict(this.kf);
  }

  activate(id: number, frameId: number): void {
    this.trackId = id;
    this.kf = initiate(this.xyah());
    this.state = 'tracked';
    this.activated = frameId === 1;
    this.frameId = frameId;
    this.startFrame = frameId;
    this.hits = 1;
    this.observe(frameId);
  }

  private observe(frameId: number): void {
    const [x, y, w, h] = this.tlwh;
    this.observed.push([frameId, x + w / 2, y + h / 2]);
    if (this.observed.length > DIRECTION_SPAN + 1) this.observed.shift();
  }

  /** Unit direction of travel from observations (not the filter), or null while too short. */
  direction(): [number, number] | null {
    if (this.observed.length < 2) return null;
    const last = this.observed[this.observed.length - 1]!;
    const first = this.observed.find((o) => last[0] - o[0] <= DIRECTION_SPAN) ?? this.observed[0]!;
    return unit(last[1] - first[1], last[2] - first[2]);
  }

  lastObserved(): [number, number] {
    const o = this.observed[this.observed.length - 1]!;
    return [o[1], o[2]];
  }

  updateFrom(det: STrack, frameId: number): void {
    this.frameId = frameId;
    this.hits++;
    update(this.kf!, det.xyah());
    this.tlwh = det.tlwh;
    this.state = 'tracked';
    this.activated = true;
    this.score = det.score;
    if (det.look) {
      if (this.look) blendAppearance(this.look, det.look, LOOK_RATE);
      else this.look = det.look;
    }
    this.observe(frameId);
  }
}

function iouTlwh(a: [number, number, number, number], b: [number, number, number, number]): number {
  const iw = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const ih = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / (a[2] * a[3] + b[2] * b[3] - inter);
}

/** 1 - IoU between track predictions and detections, optionally fused with the detection score (ByteTrack fuse_score). */
function iouCost(tracks: STrack[], dets: STrack[], fuse: boolean): Float64Array {
  const cost = new Float64Array(tracks.length * dets.length);
  for (let i = 0; i < tracks.length; i++) {
    const tb = tracks[i]!.box();
    for (let j = 0; j < dets.length; j++) {
      const sim = iouTlwh(tb, dets[j]!.tlwh);
      cost[i * dets.length + j] = 1 - (fuse ? sim * dets[j]!.score : sim);
    }
  }
  return cost;
}

function unit(dx: number, dy: number): [number, number] | null {
  const n = Math.hypot(dx, dy);
  return n < 1e-6 ? null : [dx / n, dy / n];
}

/**
 * OC-SORT's direction-consistency term added to a cost matrix in place: for each track
 * with a direction of travel and each detection it may match (cost within `limit`), the
 * cost falls by up to weight/2 * score when the detection lies straight ahead of the
 * track's last observation and rises by as much when it lies straight behind. Two people
 * passing each other keep their ids: each detection is ahead of one of them only.
 */
function addDirectionCost(cost: Float64Array, tracks: STrack[], dets: STrack[], weight: number, limit: number): void {
  if (weight <= 0) return;
  for (let i = 0; i < tracks.length; i++) {
    const dir = tracks[i]!.direction();
    if (!dir) continue;
    const [ox, oy] = tracks[i]!.lastObserved();
    for (let j = 0; j < dets.length; j++) {
      const k = i * dets.length + j;
      if (cost[k]! > limit) continue;
      const [x, y, w, h] = dets[j]!.tlwh;
      const to = unit(x + w / 2 - ox, y + h / 2 - oy);
      if (!to) continue;
      const angle = Math.acos(Math.max(-1, Math.min(1, dir[0] * to[0] + dir[1] * to[1])));
      cost[k] = cost[k]! - ((weight * (Math.PI / 2 - angle)) / Math.PI) * dets[j]!.score;
    }
  }
}

/**
 * Appearance in the first association, in place: among the pairs within reach by position,
 * one whose colours differ costs up to `weight` more, so where two people overlap each box
 * goes to the track that looks like it.
 */
function addAppearanceCost(cost: Float64Array, tracks: STrack[], dets: STrack[], weight: number, limit: number): void {
  if (weight <= 0) return;
  for (let i = 0; i < tracks.length; i++) {
    const a = tracks[i]!.look;
    if (!a) continue;
    for (let j = 0; j < dets.length; j++) {
      const k = i * dets.length + j;
      const b = dets[j]!.look;
      if (!b || cost[k]! > limit) continue;
      cost[k] = cost[k]! + weight * (1 - appearanceSimilarity(a, b));
    }
  }
}

/**
 * ByteTrack (Zhang et al. 2022) as in its reference BYTETracker: Kalman prediction,
 * a first association of high-score detections with tracked and lost tracks, a
 * second association of low-score detections with the still-unmatched tracked ones
 * (occluded people keep their id), unconfirmed tracks that need a second hit, and
 * lost tracks kept maxLostFrames for re-identification. One instance per camera.
 */
export class ByteTracker {
  private tracked: STrack[] = [];
  private lost: STrack[] = [];
  private frameId = 0;
  private nextId = 1;

  constructor(private readonly s: TrackerSettings) {}

  /**
   * Feeds one processed frame's detections; returns the confirmed tracks in it and
   * the ids of confirmed tracks dropped for good in this frame (lost too long).
   */
  update(detections: readonly DescribedDetection[]): { tracks: TrackedPerson[]; removed: number[] } {
    const s = this.s;
    this.frameId++;
    const frameId = this.frameId;
    const high: STrack[] = [];
    const low: STrack[] = [];
    for (const d of detections) {
      if (d.score >= s.highThresh) high.push(STrack.fromDetection(d));
      else if (d.score > s.lowThresh) low.push(STrack.fromDetection(d));
    }
    const activated: STrack[] = [];
    const refound: STrack[] = [];
    const newlyLost: STrack[] = [];
    const removed: STrack[] = [];

    const unconfirmed = this.tracked.filter((t) => !t.activated);
    const confirmed = this.tracked.filter((t) => t.activated);

    // Stage 1: high-score detections against tracked + lost tracks.
    const pool = joinTracks(confirmed, this.lost);
    for (const t of pool) t.predict();
    const c1 = iouCost(pool, high, true);
    // Pairs beyond the IoU limit stay out of reach whatever their direction.
    for (let k = 0; k < c1.length; k++) if (c1[k]! > s.matchThresh) c1[k] = 2;
    addDirectionCost(c1, pool, high, s.directionWeight, s.matchThresh);
    addAppearanceCost(c1, pool, high, s.appearanceWeight, s.matchThresh);
    const a1 = linearAssignment(c1, pool.length, high.length, s.matchThresh + s.directionWeight / 2);
    for (const [ti, di] of a1.matches) {
      const t = pool[ti]!;
      const wasTracked = t.state === 'tracked';
      t.updateFrom(high[di]!, frameId);
      (wasTracked ? activated : refound).push(t);
    }

    // Stage 2: low-score detections against the tracked ones left over.
    const remaining = a1.unmatchedRows.map((i) => pool[i]!).filter((t) => t.state === 'tracked');
    const a2 = linearAssignment(iouCost(remaining, low, false), remaining.length, low.length, s.secondMatchThresh);
    for (const [ti, di] of a2.matches) {
      const t = remaining[ti]!;
      t.updateFrom(low[di]!, frameId);
      activated.push(t);
    }
    for (const ti of a2.unmatchedRows) {
      const t = remaining[ti]!;
      if (t.state !== 'lost') {
        t.state = 'lost';
        newlyLost.push(t);
      }
    }

    // Unconfirmed tracks (seen once) get one chance at the high detections left over.
    const leftHigh = a1.unmatchedCols.map((i) => high[i]!);
    const a3 = linearAssignment(iouCost(unconfirmed, leftHigh, true), unconfirmed.length, leftHigh.length, 0.7);
    for (const [ti, di] of a3.matches) {
      unconfirmed[ti]!.updateFrom(leftHigh[di]!, frameId);
      activated.push(unconfirmed[ti]!);
    }
    for (const ti of a3.unmatchedRows) {
      unconfirmed[ti]!.state = 'removed';
      removed.push(unconfirmed[ti]!);
    }

    // New tracks from confident detections nobody claimed.
    for (const di of a3.unmatchedCols) {
      const d = leftHigh[di]!;
      if (d.score < s.newTrackThresh) continue;
      d.activate(this.nextId++, frameId);
      activated.push(d);
    }

    // Lost tracks past their time are dropped.
    for (const t of this.lost) {
      if (frameId - t.frameId > s.maxLostFrames) {
        t.state = 'removed';
        removed.push(t);
      }
    }

    let tracked = this.tracked.filter((t) => t.state === 'tracked');
    tracked = joinTracks(tracked, activated);
    tracked = joinTracks(tracked, refound);
    let lost = this.lost.filter((t) => t.state === 'lost' && !tracked.includes(t));
    lost = joinTracks(lost, newlyLost).filter((t) => t.state !== 'removed');
    [this.tracked, this.lost] = removeDuplicates(tracked, lost);

    const tracks = this.tracked
      .filter((t) => t.activated)
      .map((t) => {
        const [x, y, w, h] = t.box();
        return { trackId: t.trackId, x1: x, y1: y, x2: x + w, y2: y + h, score: t.score, hits: t.hits, look: t.look };
      });
    const live = new Set([...this.tracked, ...this.lost].map((t) => t.trackId));
    const gone = [...removed, ...tracked, ...lost].filter((t) => t.activated && t.trackId > 0 && !live.has(t.trackId)).map((t) => t.trackId);
    return { tracks, removed: [...new Set(gone)] };
  }

  get activeCount(): number {
    return this.tracked.filter((t) => t.activated).length;
  }
}

function joinTracks(a: STrack[], b: STrack[]): STrack[] {
  const seen = new Set(a.map((t) => t.trackId));
  const out = [...a];
  for (const t of b) {
    if (!seen.has(t.trackId)) {
      seen.add(t.trackId);
      out.push(t);
    }
  }
  return out;
}

/**
 * A tracked and a lost track on the same spot are one person under two ids: keep the one
 * with the longer history (ByteTrack's reference). Except when they go opposite ways: then
 * the lost one is a person hidden behind a passer-by, and dropping it (as the reference did)
 * gave that person a new id, or the passer-by's, when they came out, with their line sides.
 */
function passing(a: STrack, b: STrack): boolean {
  const da = a.direction();
  const db = b.direction();
  return da !== null && db !== null && da[0] * db[0] + da[1] * db[1] < 0;
}

function removeDuplicates(tracked: STrack[], lost: STrack[]): [STrack[], STrack[]] {
  const dropT = new Set<STrack>();
  const dropL = new Set<STrack>();
  for (const t of tracked) {
    for (const l of lost) {
      if (1 - iouTlwh(t.box(), l.box()) < 0.15 && !passing(t, l)) {
        if (t.frameId - t.startFrame > l.frameId - l.startFrame) dropL.add(l);
        else dropT.add(t);
      }
    }
  }
  return [tracked.filter((t) => !dropT.has(t)), lost.filter((l) => !dropL.has(l))];
}
