import type { TrackedPerson } from '../../person/bytetrack.js';
import type { Pt } from './geometry.js';

export interface TrackMemorySettings {
  /** A new track may continue one lost at most this many processed frames ago. */
  reassociateFrames: number;
  /** ... whose last point lies within this many of its box heights of the new track's. */
  reassociateReach: number;
  /** The standing height of a person is the tallest box of their last this many frames. */
  heightFrames: number;
  /** Dead band around lines and zone edges for a person, as a fraction of their box height (at least the rule's own band). */
  personBand: number;
  /** A person's point is the mean of their last this many standing points (1: this frame's). */
  smoothFrames: number;
}

export const DEFAULT_TRACK_MEMORY: TrackMemorySettings = { reassociateFrames: 30, reassociateReach: 0.5, heightFrames: 1, personBand: 0, smoothFrames: 3 };

interface Memory {
  at: Pt;
  /** Mean motion of the point per processed frame (recent frames weigh more). */
  vel: Pt;
  recent: Pt[];
  heights: number[];
  frame: number;
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
 *   old one's side of every line and zone if it appears close to where the old one was
 *   last seen, shortly after: a person who crossed while unseen counts once, and a
 *   person re-acquired on the same side counts nothing.
 */
export class TrackMemory {
  private readonly mem = new Map<number, Memory>();
  private frame = 0;

  constructor(private readonly s: TrackMemorySettings = DEFAULT_TRACK_MEMORY) {}

  /**
   * Feeds one frame's tracks; returns their points and the [lost id, new id] pairs of
   * tracks that continue lost ones (the caller moves its per-track state).
   */
  update(tracks: readonly TrackedPerson[]): { points: Map<number, Pt>; bands: Map<number, number>; continued: [number, number][] } {
    this.frame++;
    const current = new Set(tracks.map((t) => t.trackId));
    const fresh = tracks.filter((t) => !this.mem.has(t.trackId));
    const continued: [number, number][] = [];
    if (fresh.length > 0 && this.s.reassociateReach > 0) {
      // Where each recently lost track would be now, going on as it went.
      const lost: { id: number; at: Pt; h: number }[] = [];
      const others: Pt[] = [];
      for (const [id, m] of this.mem) {
        if (current.has(id)) {
          others.push(m.at);
          continue;
        }
        const gap = this.frame - m.frame;
        if (gap > this.s.reassociateFrames) continue;
        lost.push({ id, at: [m.at[0] + m.vel[0] * gap, m.at[1] + m.vel[1] * gap], h: Math.max(...m.heights) });
      }
      const freshPts = fresh.map((t) => ({ t, p: this.standingPoint(t, [t.y2 - t.y1]) }));
      const near = (a: Pt, b: Pt, r: number) => Math.hypot(a[0] - b[0], a[1] - b[1]) <= r;
      for (const { t, p } of freshPts) {
        const r = (h: number) => this.s.reassociateReach * Math.max(h, t.y2 - t.y1);
        const cands = lost.filter((l) => near(l.at, p, r(l.h)));
        // Only when it is unambiguous: one lost track near, nobody else near the new one,
        // and no other new track near the lost one. In a crowd, sides are not handed on.
        if (cands.length !== 1) continue;
        const c = cands[0]!;
        if (others.some((o) => near(o, p, r(c.h)))) continue;
        if (freshPts.some((f) => f.t !== t && near(f.p, c.at, r(c.h)))) continue;
        const m = this.mem.get(c.id)!;
        this.mem.delete(c.id);
        this.mem.set(t.trackId, { ...m, recent: [] });
        lost.splice(lost.indexOf(c), 1);
        continued.push([c.id, t.trackId]);
      }
    }
    const points = new Map<number, Pt>();
    const bands = new Map<number, number>();
    for (const t of tracks) {
      const known = this.mem.get(t.trackId);
      const m = known ?? { at: [0, 0] as Pt, vel: [0, 0] as Pt, recent: [], heights: [], frame: 0 };
      const before = m.at;
      const gap = Math.max(1, this.frame - m.frame);
      m.heights.push(t.y2 - t.y1);
      if (m.heights.length > this.s.heightFrames) m.heights.shift();
      m.recent.push(this.standingPoint(t, m.heights));
      if (m.recent.length > this.s.smoothFrames) m.recent.shift();
      m.at = [m.recent.reduce((a, p) => a + p[0], 0) / m.recent.length, m.recent.reduce((a, p) => a + p[1], 0) / m.recent.length];
      if (known && m.recent.length > 1) m.vel = [0.5 * m.vel[0] + (0.5 * (m.at[0] - before[0])) / gap, 0.5 * m.vel[1] + (0.5 * (m.at[1] - before[1])) / gap];
      m.frame = this.frame;
      this.mem.set(t.trackId, m);
      points.set(t.trackId, m.at);
      bands.set(t.trackId, this.s.personBand * Math.max(...m.heights));
    }
    return { points, bands, continued };
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
