import type { Detection } from '../../src/modules/person/yolox-detector.js';
import type { TrackedPerson } from '../../src/modules/person/bytetrack.js';
import { linearAssignment } from '../../src/modules/person/linear-assignment.js';
import { iouBox, type MotBox } from './mot-metrics.js';

/** A detection that knows whose it is (the annotated id), for the ground-truth-identity runs. */
export interface OracleDetection extends Detection {
  id: number;
}

export interface OracleFrame {
  width: number;
  height: number;
  dets: OracleDetection[];
}

export interface OracleNoise {
  /** Each box edge moves by a normal draw of this many box heights (0: exact boxes). */
  jitter: number;
  /** Each box is missed with this probability, independently per frame. */
  dropout: number;
}

/**
 * The annotated boxes, as a perfect detector would deliver them, for separating the
 * counting logic's error from the detector's (eval-tracking --oracle). With noise, the
 * two failures a real detector adds: boxes whose edges jitter from frame to frame and
 * people missed in some frames. The boxes are those the truth is counted on (cut to the
 * picture), in the delivered frame's pixels.
 */
export function oracleFrames(gt: MotBox[], nFrames: number, width: number, height: number, noise: OracleNoise, rand: () => number): OracleFrame[] {
  const frames: OracleFrame[] = Array.from({ length: nFrames }, () => ({ width, height, dets: [] }));
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  for (const b of [...gt].sort((p, q) => p.frame - q.frame || p.id - q.id)) {
    const f = frames[b.frame - 1];
    if (!f) continue;
    if (noise.dropout > 0 && rand() < noise.dropout) continue;
    const s = noise.jitter * b.h;
    const x1 = b.x + s * gauss();
    const y1 = b.y + s * gauss();
    const x2 = b.x + b.w + s * gauss();
    const y2 = b.y + b.h + s * gauss();
    if (x2 - x1 < 2 || y2 - y1 < 2) continue;
    f.dets.push({ x1, y1, x2, y2, score: 0.9, id: b.id });
  }
  return frames;
}

/** The ground-truth identities as tracks (no tracker): what counting does when tracking is perfect. */
export function oracleTracks(f: OracleFrame): TrackedPerson[] {
  return f.dets.map((d) => ({ trackId: d.id, x1: d.x1, y1: d.y1, x2: d.x2, y2: d.y2, score: d.score, hits: 1 }));
}

/**
 * The detector's own boxes, each given the annotated id of the box it overlaps best
 * (IoU >= 0.5, one-to-one per frame; unmatched boxes are dropped as false positives):
 * counting with the real detector's misses and jitter but perfect identities.
 */
export function detectionsWithTruthIds(frames: { width: number; height: number; dets: Detection[] }[], gt: MotBox[], frameW: number): OracleFrame[] {
  const byFrame = new Map<number, MotBox[]>();
  for (const b of gt) byFrame.set(b.frame, [...(byFrame.get(b.frame) ?? []), b]);
  return frames.map((f, i) => {
    const s = frameW / f.width;
    const dets = f.dets.filter((d) => d.score >= 0.5).map((d) => ({ x: d.x1 * s, y: d.y1 * s, w: (d.x2 - d.x1) * s, h: (d.y2 - d.y1) * s, score: d.score }));
    const truth = byFrame.get(i + 1) ?? [];
    const cost = new Float64Array(truth.length * dets.length);
    for (let a = 0; a < truth.length; a++) for (let b = 0; b < dets.length; b++) cost[a * dets.length + b] = 1 - iouBox(truth[a]!, { frame: 0, id: 0, ...dets[b]! });
    const out: OracleDetection[] = [];
    for (const [a, b] of linearAssignment(cost, truth.length, dets.length, 0.5).matches) {
      const d = dets[b]!;
      out.push({ x1: d.x, y1: d.y, x2: d.x + d.w, y2: d.y + d.h, score: d.score, id: truth[a]!.id });
    }
    return { width: frameW, height: Math.round(f.height * s), dets: out };
  });
}
