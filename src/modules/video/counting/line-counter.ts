import { pathCrossesSegment, signedDistance, type Pt } from './geometry.js';

interface TrackSide {
  side: 1 | -1;
  /** Where the anchor last stood clearly on that side. */
  at: Pt;
}

/**
 * Counts one line. A track's side of the line changes only once its anchor is
 * farther than `margin` pixels from it, so an anchor jittering on the line never
 * flips back and forth (hysteresis); a change of side counts when the path from
 * the last clear position to the new one passes through the segment itself, so
 * walking round the end of a line counts nothing. A track first seen on one side
 * has no previous side: appearing (or re-appearing under a new id) never counts.
 */
export class LineCounter {
  private readonly sides = new Map<number, TrackSide>();

  constructor(
    private readonly a: Pt,
    private readonly b: Pt,
    private readonly margin: number,
  ) {}

  /**
   * 'in' = left to right of a->b as the image is seen; 'out' = right to left.
   * `personBand`: a wider dead band for this observation (pixels), for a person whose
   * box is large enough that its edge jitters by more than the rule's band.
   */
  observe(trackId: number, anchor: Pt, personBand = 0): 'in' | 'out' | null {
    const d = signedDistance(this.a, this.b, anchor);
    if (Math.abs(d) <= Math.max(this.margin, personBand)) return null;
    const side: 1 | -1 = d > 0 ? 1 : -1;
    const prev = this.sides.get(trackId);
    this.sides.set(trackId, { side, at: anchor });
    if (!prev || prev.side === side) return null;
    if (!pathCrossesSegment(prev.at, anchor, this.a, this.b, this.margin)) return null;
    return side === 1 ? 'in' : 'out';
  }

  forget(trackId: number): void {
    this.sides.delete(trackId);
  }

  /** A new track continues a lost one: it takes over the lost one's state. */
  rename(from: number, to: number): void {
    const st = this.sides.get(from);
    if (st === undefined) return;
    this.sides.delete(from);
    this.sides.set(to, st);
  }

  trackIds(): number[] {
    return [...this.sides.keys()];
  }

  get trackedCount(): number {
    return this.sides.size;
  }
}
