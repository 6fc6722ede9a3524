import type { TrackedPerson } from '../../person/bytetrack.js';
import type { Pt } from './geometry.js';
import { appearanceSimilarity, type Appearance } from '../../person/appearance.js';

export interface TrackMemorySettings {
  /** A new track may continue one lost at most this many processed frames ago. */
  reassociateFrames: number;
  /** ... whose predicted point lies within this many box heights of the new track's (pairs taken nearest first, one to one). */
  reassociateReach: number;
  /** The standing height of a person is the tallest box of their last this many frames. */
  heightFrames: number;
  /** Dead band around lines and zone edges for a person, as a fraction of their box height (at least the rule's own band). */
  personBand: number;
  /** A person's point is the mean of their last this many standing points (1: this frame's). */
  smoothFrames: number;
  /**
   * A person's dead band around lines is at least this many times the recent jitter of
   * their point (0: the rule's band alone). Three: on the random lines of
   * bench/eval-tracking.ts it lowered the tuning scenes' summed line error on each of eight
   * seeds, five of them drawn after the choice (docs/accuracy.md, "Jitter band").
   */
  jitterBand: number;
  /**
   * A new id continues a lost one only if their colours (TrackedPerson.look) are at least
   * this alike, where both are known. 0, shipped: positions alone (a colour gate was measured
   * and cost more right hand-overs than it saved wrong ones, docs/accuracy.md).
   */
  lookMin: number;
  /**
   * Where a lost track would be by now is its point moved on by the motion of its box's top
   * (the head, rarely hidden), not of its point (the feet). In a group the box's bottom edge
   * rises as someone in front hides the legs, or drops when the box takes in the legs of the
   * person in front, often in the last frames before the tracker loses the person: taken as
   * motion over a gap of 20 frames that sent the prediction a box height or more off, and the
   * person, found again under a new id, lost their sides (docs/accuracy.md, "Lost tracks'
   * motion"). false: the point's own motion (the previous rounds).
   */
  headMotion: boolean;
}

export const DEFAULT_TRACK_MEMORY: TrackMemorySettings = { reassociateFrames: 30, reassociateReach: 1, heightFrames: 1, personBand: 0, smoothFrames: 3, lookMin: 0, jitterBand: 3, headMotion: true };

/** How far each frame moves a track's running head motion (0.15 and 0.5 gave the same TUD and KITTI-17 counts). */
const HEAD_RATE = 0.3;

/** How far each frame moves a track's running jitter: a jump is felt at once and forgotten over a few frames. */
const JITTER_RATE = 0.3;

interface Memory {
  at: Pt;
  /** Mean motion of the point per processed frame (recent frames weigh more). */
  vel: Pt;
  recent: Pt[];
  heights: number[];
  frame: number;
  look: Appearance | null;
  /** The last raw standing point (before smoothing). */
  raw: Pt | null;
  /** Running mean distance (pixels) of each raw point from where the last one and the motion put it. */
  jitter: number;
  /** Top-centre of the last box, and its running motion per processed frame. */
  head: Pt | null;
  headVel: Pt;
}

/**
 * A new id that continues a lost one, and how far the lost one's own path reaches towards it:
 * where the lost one would be by now (the prediction it was paired by), moved on along the way
 * it was going as far as the new id is ahead of that place. A person who walked faster than
 * predicted is found ahead on their path; a neighbour is found beside it.
 */
export interface Continuation {
  lost: number;
  fresh: number;
  reached: Pt;
}

/** `at` moved along `v`'s direction as far as `to` lies ahead of it (not back: behind is not explained). */
function alongPath(at: Pt, v: Pt, to: Pt): Pt {
  const n = Math.hypot(v[0], v[1]);
  if (n === 0) return at;
  const ahead = Math.max(0, ((to[0] - at[0]) * v[0] + (to[1] - at[1]) * v[1]) / n);
  return [at[0] + (v[0] / n) * ahead, at[1] + (v[1] / n) * ahead];
}

/**
 * What counting remembers of each track beyond the tracker:
 *
 * - Where a person stands. The box's bottom edge is where the feet are only while the
 *   legs are visible; when someone in front hides them the detector's box shrinks from
 *   below and its bottom rises, which looked like walking back over a floor line. So the
 *   point is the box's top plus the person's standing height (the tallest box of the
 *   last few frames): hidden legs, or feet cut off by the frame's lower edge, leave it
 *   where it was.
 * - Which lost track a new id continues. When the tracker loses a person (occlusion, a
 *   missed detection run) and later starts a new id for them, the new id inherits the
 *   old one's side of every line and zone if it appears within a box height of where the
 *   old one would be by now (going on as its head went), shortly after; new and lost ids are
 *   paired one to one, nearest first. A person who crossed while unseen counts once, and
 *   a person re-acquired on the same side counts nothing. A line's side is not handed on
 *   where it would count a crossing that the lost one's own path does not reach
 *   (LineCounter.continueAs): that is someone walking beside them.
 * - How much a person's point jumps. A box whose bottom edge comes and goes (legs hidden
 *   by someone in front and found again, a box that takes in part of a neighbour) moves
 *   the point by a good part of the person's height from one frame to the next, more
 *   than a line's band, and for longer than the 3 frames a change of side settles over:
 *   a person walking along a line near it was counted across and back. Each track's
 *   jitter is the running mean distance between where its point is and where its last
 *   point and motion put it; its band around a line is at least `jitterBand` times that,
 *   so a steady walker keeps the rule's band and a jumping box needs a clear move.
 */
export class TrackMemory {
  private readonly mem = new Map<number, Memory>();
  private frame = 0;

  constructor(private readonly s: TrackMemorySettings = DEFAULT_TRACK_MEMORY) {}

  /**
   * Feeds one frame's tracks (in a width x height frame); returns their points and the
   * new ids that continue lost ones (the caller moves its per-track state). `bands` are the
   * dead bands for zones, `lineBands` those for lines (with the jitter band: on zones it
   * raised the error).
   */
  update(tracks: readonly TrackedPerson[], width: number, height: number): { points: Map<number, Pt>; bands: Map<number, number>; lineBands: Map<number, number>; continued: Continuation[] } {
    this.frame++;
    const current = new Set(tracks.map((t) => t.trackId));
    const fresh = tracks.filter((t) => !this.mem.has(t.trackId));
    const continued: Continuation[] = [];
    if (fresh.length > 0 && this.s.reassociateReach > 0) {
      // Where each recently lost track would be now, going on as its head went.
      const lost: { id: number; at: Pt; v: Pt; h: number; look: Appearance | null }[] = [];
      for (const [id, m] of this.mem) {
        if (current.has(id)) continue;
        const gap = this.frame - m.frame;
        if (gap > this.s.reassociateFrames) continue;
        const v = this.s.headMotion ? m.headVel : m.vel;
        const at: Pt = [m.at[0] + v[0] * gap, m.at[1] + v[1] * gap];
        // Going on as they went, they are out of the picture by now: they left, they are
        // not hidden, and someone walking in there is someone else.
        if (at[0] < 0 || at[0] > width || at[1] < 0 || at[1] > height) continue;
        lost.push({ id, at, v, h: Math.max(...m.heights), look: m.look });
      }
      // Every (new, lost) pair within reach, nearest first (distance in box heights), each
      // track used once: in a crowd, where several people are lost and found together, each
      // new id continues the lost one that would be where it appeared. Handing sides on only
      // when one lost track alone was near (the earlier rule) dropped most re-acquisitions in
      // crowds, which is where trackers lose people.
      const pairs: { lostId: number; freshId: number; d: number; reached: Pt }[] = [];
      for (const t of fresh) {
        const p = this.standingPoint(t, [t.y2 - t.y1]);
        for (const l of lost) {
          const d = Math.hypot(l.at[0] - p[0], l.at[1] - p[1]) / Math.max(l.h, t.y2 - t.y1);
          if (d > this.s.reassociateReach) continue;
          if (this.s.lookMin > 0 && l.look && t.look && appearanceSimilarity(l.look, t.look) < this.s.lookMin) continue;
          pairs.push({ lostId: l.id, freshId: t.trackId, d, reached: alongPath(l.at, l.v, p) });
        }
      }
      pairs.sort((a, b) => a.d - b.d);
      const takenLost = new Set<number>();
      const takenFresh = new Set<number>();
      for (const { lostId, freshId, reached } of pairs) {
        if (takenLost.has(lostId) || takenFresh.has(freshId)) continue;
        takenLost.add(lostId);
        takenFresh.add(freshId);
        const m = this.mem.get(lostId)!;
        this.mem.delete(lostId);
        this.mem.set(freshId, { ...m, recent: [] });
        continued.push({ lost: lostId, fresh: freshId, reached });
      }
    }
    const points = new Map<number, Pt>();
    const bands = new Map<number, number>();
    const lineBands = new Map<number, number>();
    for (const t of tracks) {
      const known = this.mem.get(t.trackId);
      const m = known ?? { at: [0, 0] as Pt, vel: [0, 0] as Pt, recent: [], heights: [], frame: 0, look: null, raw: null, jitter: 0, head: null, headVel: [0, 0] as Pt };
      if (t.look) m.look = t.look;
      const before = m.at;
      const gap = Math.max(1, this.frame - m.frame);
      m.heights.push(t.y2 - t.y1);
      if (m.heights.length > this.s.heightFrames) m.heights.shift();
      const raw = this.standingPoint(t, m.heights);
      if (known && m.raw) {
        const e = Math.hypot(raw[0] - m.raw[0] - m.vel[0] * gap, raw[1] - m.raw[1] - m.vel[1] * gap);
        m.jitter = (1 - JITTER_RATE) * m.jitter + JITTER_RATE * e;
      }
      m.raw = raw;
      const head: Pt = [(t.x1 + t.x2) / 2, t.y1];
      if (known && m.head) m.headVel = [(1 - HEAD_RATE) * m.headVel[0] + (HEAD_RATE * (head[0] - m.head[0])) / gap, (1 - HEAD_RATE) * m.headVel[1] + (HEAD_RATE * (head[1] - m.head[1])) / gap];
      m.head = head;
      m.recent.push(raw);
      if (m.recent.length > this.s.smoothFrames) m.recent.shift();
      m.at = [m.recent.reduce((a, p) => a + p[0], 0) / m.recent.length, m.recent.reduce((a, p) => a + p[1], 0) / m.recent.length];
      if (known && m.recent.length > 1) m.vel = [0.5 * m.vel[0] + (0.5 * (m.at[0] - before[0])) / gap, 0.5 * m.vel[1] + (0.5 * (m.at[1] - before[1])) / gap];
      m.frame = this.frame;
      this.mem.set(t.trackId, m);
      points.set(t.trackId, m.at);
      bands.set(t.trackId, this.s.personBand * Math.max(...m.heights));
      lineBands.set(t.trackId, Math.max(this.s.personBand * Math.max(...m.heights), this.s.jitterBand * m.jitter));
    }
    return { points, bands, lineBands, continued };
  }

  /** Ids not seen for longer than a lost track may be continued: the caller forgets them. */
  expire(): number[] {
    const gone: number[] = [];
    for (const [id, m] of this.mem) {
      if (this.frame - m.frame > this.s.reassociateFrames) {
        this.mem.delete(id);
        gone.push(id);
      }
    }
    return gone;
  }

  /** Every id remembered (end of stream). */
  ids(): number[] {
    return [...this.mem.keys()];
  }

  clear(): void {
    this.mem.clear();
  }

  private standingPoint(t: TrackedPerson, heights: readonly number[]): Pt {
    return [(t.x1 + t.x2) / 2, t.y1 + Math.max(...heights)];
  }
}
