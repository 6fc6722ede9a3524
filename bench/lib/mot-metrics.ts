import { readFileSync } from 'node:fs';
import { linearAssignment } from '../../src/modules/person/linear-assignment.js';

/** One box of a track in one frame (MOTChallenge: 1-based frame, top-left + size in pixels). */
export interface MotBox {
  frame: number;
  id: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Reads a MOTChallenge gt.txt (frame,id,x,y,w,h,conf,...). Rows with conf 0 are the
 * annotators' "do not consider" boxes: returned apart, as `ignore`.
 */
export function readMot(file: string): { boxes: MotBox[]; ignore: MotBox[] } {
  const boxes: MotBox[] = [];
  const ignore: MotBox[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = line.trim().split(',').map(Number);
    if (f.length < 6 || f.some((v, i) => i < 6 && !Number.isFinite(v))) continue;
    const box = { frame: f[0]!, id: f[1]!, x: f[2]!, y: f[3]!, w: f[4]!, h: f[5]! };
    (f.length > 6 && f[6] === 0 ? ignore : boxes).push(box);
  }
  return { boxes, ignore };
}

/**
 * Hypotheses that cover an ignored ground-truth box (IoU >= threshold, one-to-one)
 * are neither true nor false positives: they are removed before scoring, as the
 * MOTChallenge devkit does.
 */
export function dropIgnored(hyp: MotBox[], ignore: MotBox[], iouThreshold = 0.5): MotBox[] {
  if (ignore.length === 0) return hyp;
  const ign = byFrame(ignore);
  const drop = new Set<MotBox>();
  for (const [f, hs] of byFrame(hyp)) {
    const is = ign.get(f);
    if (!is) continue;
    const cost = new Float64Array(is.length * hs.length);
    for (let i = 0; i < is.length; i++) for (let j = 0; j < hs.length; j++) cost[i * hs.length + j] = 1 - iouBox(is[i]!, hs[j]!);
    for (const [, j] of linearAssignment(cost, is.length, hs.length, 1 - iouThreshold).matches) drop.add(hs[j]!);
  }
  return hyp.filter((h) => !drop.has(h));
}

export function iouBox(a: MotBox, b: MotBox): number {
  const iw = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const ih = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / (a.w * a.h + b.w * b.h - inter);
}

function byFrame(boxes: MotBox[]): Map<number, MotBox[]> {
  const m = new Map<number, MotBox[]>();
  for (const b of boxes) {
    const list = m.get(b.frame) ?? [];
    list.push(b);
    m.set(b.frame, list);
  }
  return m;
}

export interface MotResult {
  frames: number;
  gt: number;
  hyp: number;
  tp: number;
  fp: number;
  fn: number;
  idsw: number;
  mota: number;
  motp: number;
  idtp: number;
  idf1: number;
  precision: number;
  recall: number;
  gtIds: number;
  hypIds: number;
}

/**
 * CLEAR MOT (MOTA, MOTP, ID switches) and IDF1, as py-motmetrics / the MOTChallenge
 * devkit compute them with an IoU threshold of 0.5: per frame, correspondences of
 * the previous frame are kept while still valid, the rest are matched by minimum
 * cost; an ID switch is a ground-truth object matched to another hypothesis than
 * the one it last had. IDF1 matches whole trajectories once (maximum IDTP).
 */
export function evaluateMot(gtBoxes: MotBox[], hypBoxes: MotBox[], iouThreshold = 0.5): MotResult {
  const gt = byFrame(gtBoxes);
  const hyp = byFrame(hypBoxes);
  const frames = [...new Set([...gt.keys(), ...hyp.keys()])].sort((a, b) => a - b);
  const last = new Map<number, number>(); // gt id -> hyp id it was last matched to
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let idsw = 0;
  let iouSum = 0;
  // IDF1: frames in which gt id g and hyp id h overlap enough.
  const pairOverlap = new Map<string, number>();
  for (const f of frames) {
    const g = gt.get(f) ?? [];
    const h = hyp.get(f) ?? [];
    for (const gb of g) {
      for (const hb of h) {
        if (iouBox(gb, hb) >= iouThreshold) {
          const k = `${gb.id}:${hb.id}`;
          pairOverlap.set(k, (pairOverlap.get(k) ?? 0) + 1);
        }
      }
    }
    const gUsed = new Set<number>();
    const hUsed = new Set<number>();
    const matched: [MotBox, MotBox][] = [];
    // Keep last frame's correspondences that still hold.
    for (const gb of g) {
      const hid = last.get(gb.id);
      if (hid === undefined) continue;
      const hb = h.find((x) => x.id === hid);
      if (hb && !hUsed.has(hb.id) && iouBox(gb, hb) >= iouThreshold) {
        matched.push([gb, hb]);
        gUsed.add(gb.id);
        hUsed.add(hb.id);
      }
    }
    const g2 = g.filter((x) => !gUsed.has(x.id));
    const h2 = h.filter((x) => !hUsed.has(x.id));
    const cost = new Float64Array(g2.length * h2.length);
    for (let i = 0; i < g2.length; i++) for (let j = 0; j < h2.length; j++) cost[i * h2.length + j] = 1 - iouBox(g2[i]!, h2[j]!);
    const a = linearAssignment(cost, g2.length, h2.length, 1 - iouThreshold);
    for (const [i, j] of a.matches) {
      const gb = g2[i]!;
      const hb = h2[j]!;
      const prev = last.get(gb.id);
      if (prev !== undefined && prev !== hb.id) idsw++;
      matched.push([gb, hb]);
    }
    for (const [gb, hb] of matched) {
      last.set(gb.id, hb.id);
      iouSum += iouBox(gb, hb);
    }
    tp += matched.length;
    fn += g.length - matched.length;
    fp += h.length - matched.length;
  }
  const gtIds = [...new Set(gtBoxes.map((b) => b.id))];
  const hypIds = [...new Set(hypBoxes.map((b) => b.id))];
  const cost = new Float64Array(gtIds.length * hypIds.length);
  for (let i = 0; i < gtIds.length; i++) {
    for (let j = 0; j < hypIds.length; j++) cost[i * hypIds.length + j] = -(pairOverlap.get(`${gtIds[i]}:${hypIds[j]}`) ?? 0);
  }
  const idMatch = linearAssignment(cost, gtIds.length, hypIds.length, 0);
  let idtp = 0;
  for (const [i, j] of idMatch.matches) idtp += -cost[i * hypIds.length + j]!;
  const nGt = gtBoxes.length;
  const nHyp = hypBoxes.length;
  return {
    frames: frames.length,
    gt: nGt,
    hyp: nHyp,
    tp,
    fp,
    fn,
    idsw,
    mota: 1 - (fn + fp + idsw) / Math.max(1, nGt),
    motp: tp > 0 ? iouSum / tp : 0,
    idtp,
    idf1: (2 * idtp) / Math.max(1, nGt + nHyp),
    precision: tp / Math.max(1, tp + fp),
    recall: tp / Math.max(1, nGt),
    gtIds: gtIds.length,
    hypIds: hypIds.length,
  };
}
