import { linearAssignment } from '../../src/modules/person/linear-assignment.js';
import { anchorOf } from '../../src/modules/video/counting/camera-counting.js';
import { LineCounter } from '../../src/modules/video/counting/line-counter.js';
import { DEFAULT_HYSTERESIS, type NormPoint } from '../../src/modules/video/counting/rules.js';
import type { Pt } from '../../src/modules/video/counting/geometry.js';
import { iouBox, type MotBox } from './mot-metrics.js';

/** One counted crossing: which line, when (1-based frame), whose (annotated or track id), which way. */
export interface CrossEvent {
  frame: number;
  line: string;
  id: number;
  dir: 'in' | 'out';
}

/** The true crossings one by one, by the rule of line-counts.ts. */
export function truthEvents(boxes: MotBox[], lines: { name: string; points: [NormPoint, NormPoint] }[], width: number, height: number): CrossEvent[] {
  const margin = DEFAULT_HYSTERESIS * Math.hypot(width, height);
  const px = (p: NormPoint): Pt => [p[0] * width, p[1] * height];
  const lc = lines.map((l) => ({ name: l.name, c: new LineCounter(px(l.points[0]), px(l.points[1]), margin) }));
  const out: CrossEvent[] = [];
  for (const b of [...boxes].sort((p, q) => p.frame - q.frame || p.id - q.id)) {
    const at = anchorOf({ x1: b.x, x2: b.x + b.w, y2: b.y + b.h });
    for (const l of lc) {
      const dir = l.c.observe(b.id, at);
      if (dir) out.push({ frame: b.frame, line: l.name, id: b.id, dir });
    }
  }
  return out;
}

/**
 * Why counts went wrong, crossing by crossing (eval-tracking --diagnose). Vigil's tracks
 * are matched to annotated people frame by frame (IoU >= 0.5); a true crossing is found
 * when a track matched to that person counted the same line the same way within
 * `window` frames. Each true crossing not found is put down to what the tracker did
 * with that person around it; each count not found in the truth to what its track was.
 * `detail` gets one line per unexplained case (frame:track or frame:person around it).
 */
export function diagnose(truth: CrossEvent[], vigil: CrossEvent[], gt: MotBox[], hyp: MotBox[], window: number, detail?: (line: string) => void): Record<string, number> {
  const hypToGt = new Map<string, number>();
  const gtToHyp = new Map<string, number>();
  const frames = new Map<number, { g: MotBox[]; h: MotBox[] }>();
  for (const b of gt) (frames.get(b.frame) ?? frames.set(b.frame, { g: [], h: [] }).get(b.frame)!).g.push(b);
  for (const b of hyp) (frames.get(b.frame) ?? frames.set(b.frame, { g: [], h: [] }).get(b.frame)!).h.push(b);
  for (const [f, { g, h }] of frames) {
    const cost = new Float64Array(g.length * h.length);
    for (let i = 0; i < g.length; i++) for (let j = 0; j < h.length; j++) cost[i * h.length + j] = 1 - iouBox(g[i]!, h[j]!);
    for (const [i, j] of linearAssignment(cost, g.length, h.length, 0.5).matches) {
      hypToGt.set(`${f}:${h[j]!.id}`, g[i]!.id);
      gtToHyp.set(`${f}:${g[i]!.id}`, h[j]!.id);
    }
  }
  // Everyone the track was on within the window (a track on an occluder still counts its occluded person's crossing).
  const personsOf = (track: number, frame: number): Set<number> => {
    const s = new Set<number>();
    for (let f = frame - window; f <= frame + window; f++) {
      const g = hypToGt.get(`${f}:${track}`);
      if (g !== undefined) s.add(g);
    }
    return s;
  };
  const tracksOf = (person: number, from: number, to: number): Set<number> => {
    const s = new Set<number>();
    for (let f = from; f <= to; f++) {
      const h = gtToHyp.get(`${f}:${person}`);
      if (h !== undefined) s.add(h);
    }
    return s;
  };
  const out: Record<string, number> = {};
  const personOfDbg = (v: CrossEvent) => [...personsOf(v.id, v.frame)].join('/');
  const add = (k: string) => (out[k] = (out[k] ?? 0) + 1);
  const used = new Set<CrossEvent>();
  const vPersons = vigil.map((v) => personsOf(v.id, v.frame));
  for (const t of truth) {
    const i = vigil.findIndex((v, k) => !used.has(v) && v.line === t.line && v.dir === t.dir && vPersons[k]!.has(t.id) && Math.abs(v.frame - t.frame) <= window);
    if (i >= 0) {
      used.add(vigil[i]!);
      add('found');
      continue;
    }
    const before = tracksOf(t.id, t.frame - window, t.frame - 1);
    const after = tracksOf(t.id, t.frame, t.frame + window);
    if (before.size === 0 && after.size === 0) add('missed: person not tracked around the crossing');
    else if (before.size === 0) add('missed: not tracked before (track started past the line)');
    else if (after.size === 0) add('missed: not tracked after (track ended before the line)');
    else if ([...after].some((h) => before.has(h))) {
      add('missed: same track on both sides');
      if (detail) {
        const seq: string[] = [];
        for (let f = t.frame - window; f <= t.frame + window; f++) seq.push(`${f}:${gtToHyp.get(`${f}:${t.id}`) ?? '-'}`);
        const vs = vigil.filter((v) => v.line === t.line && Math.abs(v.frame - t.frame) <= 3 * window);
        detail(`  miss ${t.line} ${t.dir} gt${t.id} f${t.frame} | ${seq.join(' ')} | vigil near: ${vs.map((v) => `${v.id}${v.dir}@${v.frame}(p${personOfDbg(v)})`).join(',')}`);
      }
    } else add('missed: another track after (id changed)');
  }
  vigil.forEach((v, k) => {
    if (used.has(v)) return;
    const ps = vPersons[k]!;
    if (ps.size === 0) add('extra: track on nobody (false detections)');
    else if (truth.some((t) => ps.has(t.id) && t.line === v.line && t.dir === v.dir && Math.abs(t.frame - v.frame) <= window)) add('extra: a crossing counted twice');
    else if (truth.some((t) => ps.has(t.id) && t.line === v.line && Math.abs(t.frame - v.frame) <= 3 * window)) add('extra: back and forth near a real crossing');
    else {
      add('extra: person did not cross (jitter or id swap)');
      if (detail) {
        const seq: string[] = [];
        for (let f = v.frame - window; f <= v.frame + window; f++) seq.push(`${f}:${hypToGt.get(`${f}:${v.id}`) ?? '-'}`);
        detail(`  extra ${v.line} ${v.dir} track${v.id} f${v.frame} person ${[...ps].join('/')} | ${seq.join(' ')}`);
      }
    }
  });
  return out;
}
