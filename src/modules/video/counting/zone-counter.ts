import { distanceToEdges, insidePolygon, type Pt } from './geometry.js';

export type ZoneTransition = { kind: 'entered' | 'exited'; how: 'crossed' | 'appeared' | 'lost' };

/**
 * Counts one polygon zone. A track's inside/outside state changes only when its
 * anchor is more than `margin` pixels from the zone's edge (hysteresis). A track
 * first seen inside has entered (it walked in where the camera could not see, or
 * the zone touches the frame edge); a track dropped by the tracker while inside
 * has exited. So occupancy is always the number of tracks inside, and
 * entered - exited equals it for counts started with an empty zone.
 */
export class ZoneCounter {
  private readonly inside = new Map<number, boolean>();

  constructor(
    private readonly poly: readonly Pt[],
    private readonly margin: number,
  ) {}

  observe(trackId: number, anchor: Pt, personBand = 0): ZoneTransition | null {
    if (distanceToEdges(anchor, this.poly) <= Math.max(this.margin, personBand)) return null;
    const now = insidePolygon(anchor, this.poly);
    const prev = this.inside.get(trackId);
    this.inside.set(trackId, now);
    if (prev === undefined) return now ? { kind: 'entered', how: 'appeared' } : null;
    if (prev === now) return null;
    return { kind: now ? 'entered' : 'exited', how: 'crossed' };
  }

  /** The tracker dropped the track for good. */
  lost(trackId: number): ZoneTransition | null {
    const was = this.inside.get(trackId);
    this.inside.delete(trackId);
    return was ? { kind: 'exited', how: 'lost' } : null;
  }

  /** A new track continues a lost one: it takes over the lost one's state. */
  rename(from: number, to: number): void {
    const st = this.inside.get(from);
    if (st === undefined) return;
    this.inside.delete(from);
    this.inside.set(to, st);
  }

  trackIds(): number[] {
    return [...this.inside.keys()];
  }

  get occupancy(): number {
    let n = 0;
    for (const v of this.inside.values()) if (v) n++;
    return n;
  }
}
