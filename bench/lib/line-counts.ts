import { anchorOf } from '../../src/modules/video/counting/camera-counting.js';
import { LineCounter } from '../../src/modules/video/counting/line-counter.js';
import { DEFAULT_HYSTERESIS, type LineCounts, type NormPoint } from '../../src/modules/video/counting/rules.js';
import { ZoneCounter } from '../../src/modules/video/counting/zone-counter.js';
import type { Pt } from '../../src/modules/video/counting/geometry.js';
import type { MotBox } from './mot-metrics.js';

export interface TruthCounts {
  lines: Record<string, LineCounts>;
  zones: Record<string, { entered: number; exited: number }>;
}

/**
 * The ground-truth counts of lines and zones over annotated tracks (gt.txt ids, which
 * the annotators kept through occlusions). The rule, written once here and in
 * docs/accuracy.md: a person's point is the bottom-centre of their box (where they
 * stand); their side of a line changes once that point is more than the rule's dead
 * band (0.02 of the frame diagonal, the rule default) from the line, and a change of
 * side counts one crossing when the path from the last clear position to the new one
 * passes through the segment (lengthened by the dead band at each end). A zone is
 * entered when a person's point is first clearly inside (walking in or appearing
 * there) and exited when it is clearly outside again or their annotation ends. Every
 * annotated frame counts, whatever frame rate Vigil processed at.
 */
export function truthCounts(boxes: MotBox[], lines: { name: string; points: [NormPoint, NormPoint] }[], zones: { name: string; points: NormPoint[] }[], width: number, height: number): TruthCounts {
  const margin = DEFAULT_HYSTERESIS * Math.hypot(width, height);
  const px = (p: NormPoint): Pt => [p[0] * width, p[1] * height];
  const lc = lines.map((l) => ({ name: l.name, c: new LineCounter(px(l.points[0]), px(l.points[1]), margin), n: { in: 0, out: 0 } }));
  const zc = zones.map((z) => ({ name: z.name, c: new ZoneCounter(z.points.map(px), margin), n: { entered: 0, exited: 0 } }));
  const lastFrame = new Map<number, number>();
  for (const b of boxes) lastFrame.set(b.id, Math.max(lastFrame.get(b.id) ?? 0, b.frame));
  const sorted = [...boxes].sort((p, q) => p.frame - q.frame || p.id - q.id);
  for (const b of sorted) {
    const at = anchorOf({ x1: b.x, x2: b.x + b.w, y2: b.y + b.h });
    for (const l of lc) {
      const d = l.c.observe(b.id, at);
      if (d) l.n[d]++;
    }
    for (const z of zc) {
      const t = z.c.observe(b.id, at);
      if (t) z.n[t.kind]++;
      if (lastFrame.get(b.id) === b.frame) {
        const e = z.c.lost(b.id);
        if (e) z.n[e.kind]++;
      }
    }
  }
  return {
    lines: Object.fromEntries(lc.map((l) => [l.name, l.n])),
    zones: Object.fromEntries(zc.map((z) => [z.name, z.n])),
  };
}

/** How many crossings a line direction may be said to have: the least and the most over the readings of the truth. */
export type CountRange = Record<string, { in: [number, number]; out: [number, number] }>;

/**
 * The range of true counts per line and direction over several readings of the annotation
 * (`readings`: box sets, e.g. with and without the "do not consider" people) and, for each,
 * every annotated person's point moved by `shift` of their box height left, right, up and
 * down (as well as not moved). A person whose path ends within a few pixels of a segment's
 * end, or who goes just past the band and back, crosses or not by an amount smaller than the
 * annotators' own box precision and any detector's box noise; a person the annotators marked
 * "do not consider" (MOTChallenge conf 0: far away or half hidden) may be counted or not.
 * A count anywhere in the range is as right as the annotation can tell.
 */
export function truthRange(readings: MotBox[][], lines: { name: string; points: [NormPoint, NormPoint] }[], width: number, height: number, shift: number): CountRange {
  const moves: [number, number][] = [
    [0, 0],
    [shift, 0],
    [-shift, 0],
    [0, shift],
    [0, -shift],
  ];
  const out: CountRange = {};
  for (const boxes of readings) {
    for (const [mx, my] of shift > 0 ? moves : moves.slice(0, 1)) {
      const moved = boxes.map((b) => ({ ...b, x: b.x + mx * b.h, y: b.y + my * b.h }));
      const t = truthCounts(moved, lines, [], width, height);
      for (const [name, c] of Object.entries(t.lines)) {
        const r = (out[name] ??= { in: [c.in, c.in], out: [c.out, c.out] });
        r.in = [Math.min(r.in[0], c.in), Math.max(r.in[1], c.in)];
        r.out = [Math.min(r.out[0], c.out), Math.max(r.out[1], c.out)];
      }
    }
  }
  return out;
}

/** The least and the most people a zone may be said to have had enter and exit. */
export type ZoneRange = Record<string, { entered: [number, number]; exited: [number, number] }>;

/** As truthRange, for zones and without moving the points: the range over the readings of the annotation. */
export function zoneTruthRange(readings: MotBox[][], zones: { name: string; points: NormPoint[] }[], width: number, height: number): ZoneRange {
  const out: ZoneRange = {};
  for (const boxes of readings) {
    for (const [name, c] of Object.entries(truthCounts(boxes, [], zones, width, height).zones)) {
      const r = (out[name] ??= { entered: [c.entered, c.entered], exited: [c.exited, c.exited] });
      r.entered = [Math.min(r.entered[0], c.entered), Math.max(r.entered[1], c.entered)];
      r.exited = [Math.min(r.exited[0], c.exited), Math.max(r.exited[1], c.exited)];
    }
  }
  return out;
}
