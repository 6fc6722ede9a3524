import { pathCrossesSegment, signedDistance, type Pt } from './geometry.js';

/**
 * How much of the gap between how far a lost track's path reaches and the new id that
 * continues it still explains a crossing (LineCounter.continueAs). A quarter: over the random
 * lines of bench/eval-tracking.ts it cut TUD-Stadtmitte's extra counts by a quarter with the
 * line error no higher on any tuning scene (0 lost more real crossings made out of sight than
 * it saved, 0.5 saved few; docs/accuracy.md, "Hand-over of a crossing").
 */
export const HANDOVER_SLACK = 0.25;

interface TrackSide {
  side: 1 | -1;
  /** Where the anchor last stood clearly on that side. */
  at: Pt;
  /** Clear observations on the other side since, and the first of them (a change of side not yet settled). */
  pending?: { n: number; first: Pt };
}

/**
 * Counts one line. A track's side of the line changes only once its anchor is
 * farther than `margin` pixels from it, so an anchor jittering on the line never
 * flips back and forth (hysteresis in space), and only once it has stood clearly on
 * the new side in `settle` observations without going back (hysteresis in time: a box
 * whose edge flicks over the line and back for a frame or two, or two tracks that trade
 * boxes for a frame, count nothing). A change of side counts when the path from the last
 * clear position to the first one on the new side passes through the segment itself,
 * so walking round the end of a line counts nothing. A track first seen on one side has
 * no previous side: appearing (or re-appearing under a new id) never counts. A track
 * forgotten while its change of side was still settling counts it then: a person who
 * crosses a line and leaves the picture right after it is not lost.
 */
export class LineCounter {
  private readonly sides = new Map<number, TrackSide>();

  constructor(
    private readonly a: Pt,
    private readonly b: Pt,
    private readonly margin: number,
    private readonly settle = 1,
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
    if (!prev || prev.side === side) {
      this.sides.set(trackId, { side, at: anchor });
      return null;
    }
    const pending = prev.pending ?? { n: 0, first: anchor };
    pending.n++;
    if (pending.n < this.settle) {
      prev.pending = pending;
      return null;
    }
    this.sides.set(trackId, { side, at: anchor });
    return this.crossing(prev, pending.first);
  }

  /** The track is gone for good; a change of side still settling counts now. */
  forget(trackId: number): 'in' | 'out' | null {
    const st = this.sides.get(trackId);
    this.sides.delete(trackId);
    return st?.pending ? this.crossing(st, st.pending.first) : null;
  }

  /**
   * A new track continues a lost one (counting's track memory paired them) and takes over its
   * side, unless that side would count a crossing the lost one's own path does not explain:
   * the new track stands clearly across the line from the lost one's side while `reached`
   * (how far the lost one's path goes towards the new track: its predicted place, moved on
   * along its way as far as the new track is ahead of it) has not come within the band plus
   * HANDOVER_SLACK of the distance between the two. Then the crossing would come only from
   * the gap beside the path: the new track is someone walking beside or behind the lost one
   * (in a group, the person handed on is often the neighbour), and it starts on this line as
   * a new person.
   */
  continueAs(from: number, to: number, reached: Pt, now: Pt): void {
    const st = this.sides.get(from);
    if (st === undefined) return;
    this.sides.delete(from);
    const across = signedDistance(this.a, this.b, now) * st.side < -this.margin;
    const slack = this.margin + HANDOVER_SLACK * Math.hypot(now[0] - reached[0], now[1] - reached[1]);
    if (across && signedDistance(this.a, this.b, reached) * st.side > slack) return;
    this.sides.set(to, st);
  }

  trackIds(): number[] {
    return [...this.sides.keys()];
  }

  get trackedCount(): number {
    return this.sides.size;
  }

  private crossing(from: TrackSide, to: Pt): 'in' | 'out' | null {
    if (!pathCrossesSegment(from.at, to, this.a, this.b, this.margin)) return null;
    return from.side === 1 ? 'out' : 'in';
  }
}
