import type { Logger } from 'pino';
import type { EventBus } from '../../core/event-bus.js';
import type { MatchEventData } from '../../core/event-types.js';
import type { AnalyzedFace, FaceService } from '../face/face-service.js';
import { faceDetectedData } from '../face/face-events.js';
import type { TrackedPerson } from '../person/bytetrack.js';
import type { IdentityService } from '../identity/identity-service.js';
import type { FrameConsumer } from './camera-pipeline.js';
import type { Frame } from './frame-ring.js';

/** A watchlist hit for one face embedding, as the identity module reports it. */
export interface WatchlistHit extends MatchEventData {
  /** The similarity is above the watchlist alert threshold: also a watchlist_alert. */
  alert: boolean;
}

/**
 * 1:N identification of an embedding against every watchlist. Returns null when
 * there are no watchlists (then no embedding is computed at all).
 */
export type IdentifyFn = (() => ((embedding: Float32Array) => Promise<WatchlistHit[]>) | null) | undefined;

/**
 * The identity module's watchlists as an IdentifyFn: the best identity of each non-empty
 * watchlist at or above `threshold` (one face is one person), with the watchlist's alert
 * threshold deciding watchlist_alert. Null (no embedding computed) while no watchlist has
 * anyone enrolled or the watchlist database is not open.
 */
export function watchlistSearch(identity: IdentityService, threshold: number): IdentifyFn {
  return () => {
    if (!identity.loaded) return null;
    const lists = identity
      .list()
      .filter((w) => w.size > 0)
      .map((w) => w.name);
    if (lists.length === 0) return null;
    return async (embedding) =>
      lists.flatMap((watchlist) =>
        identity.match(embedding, watchlist, 1, threshold).map((m) => ({
          identity_id: m.identity_id,
          label: m.label,
          similarity: m.similarity,
          watchlist,
          alert: m.similarity >= identity.alertThreshold(watchlist),
        })),
      );
  };
}

interface CameraFaces {
  lastAt: number;
  busy: boolean;
  /** Person tracks whose face was already announced with face_detected. */
  announced: Set<number>;
  /** "<track>:<identity>" pairs already announced with face_matched. */
  matched: Set<string>;
  /** Identity -> time of the last face_matched for a face on no person track (tracking off). */
  untracked: Map<string, number>;
  /** Faces on no person track seen lately (a close-up has no person box): announced once while they stay. */
  loose: { box: [number, number, number, number]; seen: number }[];
}

/** A face on no person track is matched again only after this long (tracking off or no box around it). */
const UNTRACKED_REPEAT_MS = 60_000;
/** A face on no track that overlaps one seen within this time is the same face, not a new one. */
const LOOSE_FACE_MS = 2_000;
const LOOSE_FACE_IOU = 0.3;

/**
 * Faces on camera frames (video.track_faces): at most face_fps frames per second
 * per camera go through the face service; each face is tied to the person track
 * whose box holds its centre. face_detected is emitted the first time a track shows
 * a face (a face on no track, such as a close-up: when it appears, followed by box
 * overlap while it stays); with watchlists, face_matched and watchlist_alert once per
 * track and identity, never per frame.
 */
export class FaceOnFrames implements FrameConsumer {
  readonly name = 'faces';
  private readonly cameras = new Map<string, CameraFaces>();

  constructor(private readonly d: { faces: FaceService; bus: EventBus; log: Logger; faceFps: number; identify?: IdentifyFn }) {}

  onFrame(cameraId: string, frame: Frame, tracks: readonly TrackedPerson[] | null, removed: readonly number[]): void {
    let st = this.cameras.get(cameraId);
    if (!st) {
      st = { lastAt: 0, busy: false, announced: new Set(), matched: new Set(), untracked: new Map(), loose: [] };
      this.cameras.set(cameraId, st);
    }
    for (const id of removed) {
      st.announced.delete(id);
      for (const k of st.matched) if (k.startsWith(`${id}:`)) st.matched.delete(k);
    }
    const now = Date.now();
    if (st.busy || now - st.lastAt < 1000 / this.d.faceFps) return;
    st.lastAt = now;
    st.busy = true;
    const state = st;
    this.process(cameraId, state, frame, tracks)
      .catch((err: unknown) => this.d.log.warn({ err, camera_id: cameraId }, 'face detection on a frame failed'))
      .finally(() => {
        state.busy = false;
      });
  }

  release(cameraId: string): void {
    this.cameras.delete(cameraId);
  }

  private isNewLooseFace(st: CameraFaces, box: [number, number, number, number], now: number): boolean {
    return isNewLooseFaceImpl(st, box, now);
  }

  private async process(cameraId: string, st: CameraFaces, frame: Frame, tracks: readonly TrackedPerson[] | null): Promise<void> {
    const identify = this.d.identify?.() ?? null;
    const faces = await this.d.faces.analyze(frame, { embed: identify !== null, quality: false, liveness: false, demographics: false });
    if (faces.length === 0) return;
    const tied = tieFacesToTracks(faces, tracks ?? []);
    const now = Date.now();
    st.loose = st.loose.filter((f) => now - f.seen <= LOOSE_FACE_MS);
    const fresh = tied.filter((t) => (t.trackId === null ? this.isNewLooseFace(st, t.face.result.detection.bbox, now) : !st.announced.has(t.trackId)));
    if (fresh.length > 0) {
      for (const t of fresh) if (t.trackId !== null) st.announced.add(t.trackId);
      const data = faceDetectedData(
        'camera',
        fresh.map((t) => t.face.result),
      );
      this.d.bus.emit('face_detected', 'video', { ...data, frame_width: frame.width, frame_height: frame.height, faces: data.faces.map((f, i) => ({ ...f, track_id: fresh[i]!.trackId })) }, cameraId);
    }
    if (!identify) return;
    for (const { face, trackId } of tied) {
      if (!face.embedding) continue;
      for (const hit of await identify(face.embedding)) {
        if (trackId !== null) {
          const key = `${trackId}:${hit.identity_id}`;
          if (st.matched.has(key)) continue;
          st.matched.add(key);
        } else {
          const last = st.untracked.get(hit.identity_id);
          if (last !== undefined && now - last < UNTRACKED_REPEAT_MS) continue;
          st.untracked.set(hit.identity_id, now);
        }
        const data: MatchEventData = { identity_id: hit.identity_id, label: hit.label, similarity: hit.similarity, watchlist: hit.watchlist };
        this.d.bus.emit('face_matched', 'video', data, cameraId);
        if (hit.alert) this.d.bus.emit('watchlist_alert', 'video', data, cameraId);
      }
    }
  }
}

/** Records a face on no track; true when no face seen lately overlaps it (the same face moving a little). */
function isNewLooseFaceImpl(st: CameraFaces, box: [number, number, number, number], now: number): boolean {
  const same = st.loose.find((f) => boxIou(f.box, box) >= LOOSE_FACE_IOU);
  if (same) {
    same.box = box;
    same.seen = now;
    return false;
  }
  st.loose.push({ box, seen: now });
  return true;
}

function boxIou(a: readonly number[], b: readonly number[]): number {
  const iw = Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!);
  const ih = Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / ((a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - inter);
}

/** The person track whose box holds the face's centre (the smallest such box: the nearest person). */
export function trackOf(face: AnalyzedFace, tracks: readonly TrackedPerson[]): TrackedPerson | null {
  const [x1, y1, x2, y2] = face.result.detection.bbox;
  const cx = (x1 + x2) / 2;
  const cy = (y1 + y2) / 2;
  let best: TrackedPerson | null = null;
  for (const t of tracks) {
    if (cx < t.x1 || cx > t.x2 || cy < t.y1 || cy > t.y2) continue;
    if (!best || (t.x2 - t.x1) * (t.y2 - t.y1) < (best.x2 - best.x1) * (best.y2 - best.y1)) best = t;
  }
  return best;
}

/**
 * Ties faces to person tracks. A person has one head: when several faces fall in one
 * box, the one nearest where a head sits (top centre) keeps the track, the others
 * (people partly hidden behind that person) get none.
 */
export function tieFacesToTracks(faces: AnalyzedFace[], tracks: readonly TrackedPerson[]): { face: AnalyzedFace; trackId: number | null }[] {
  const out = faces.map((face) => ({ face, track: trackOf(face, tracks), trackId: null as number | null }));
  const headDistance = (o: (typeof out)[number]) => {
    const t = o.track!;
    const [x1, y1, x2, y2] = o.face.result.detection.bbox;
    return Math.hypot((x1 + x2) / 2 - (t.x1 + t.x2) / 2, (y1 + y2) / 2 - (t.y1 + 0.12 * (t.y2 - t.y1)));
  };
  const byTrack = new Map<number, (typeof out)[number]>();
  for (const o of out) {
    if (!o.track) continue;
    const cur = byTrack.get(o.track.trackId);
    if (!cur || headDistance(o) < headDistance(cur)) byTrack.set(o.track.trackId, o);
  }
  for (const [id, o] of byTrack) o.trackId = id;
  return out.map(({ face, trackId }) => ({ face, trackId }));
}
