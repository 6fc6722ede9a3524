import type { NormPoint } from '../../src/modules/video/counting/rules.js';

/** The part of the frame the scene occupies, in fractions of the frame (the whole frame unless the scene was placed in a wider one). */
export interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface LineSpec {
  name: string;
  kind: 'horizontal' | 'vertical' | 'diagonal' | 'full-width' | 'short';
  points: [NormPoint, NormPoint];
}

export interface ZoneSpec {
  name: string;
  points: NormPoint[];
}

const KINDS: LineSpec['kind'][] = ['horizontal', 'vertical', 'diagonal', 'full-width', 'short'];

/**
 * Counting lines as different users would draw them, uniformly over the five kinds:
 * horizontal and vertical segments of any length, diagonals between two random
 * points, full-width lines (edge to edge of the scene, at any slope) and short
 * segments (10-25 % of the scene). Nothing about where people walk is used.
 */
export function randomLines(rand: () => number, n: number, r: Region): LineSpec[] {
  const px = (u: number, v: number): NormPoint => [round(r.x + u * r.w), round(r.y + v * r.h)];
  const lines: LineSpec[] = [];
  while (lines.length < n) {
    const kind = KINDS[lines.length % KINDS.length]!;
    let a: [number, number];
    let b: [number, number];
    if (kind === 'horizontal' || kind === 'vertical') {
      const c = 0.05 + 0.9 * rand();
      const len = 0.2 + 0.8 * rand();
      const s = rand() * (1 - len);
      a = kind === 'horizontal' ? [s, c] : [c, s];
      b = kind === 'horizontal' ? [s + len, c] : [c, s + len];
    } else if (kind === 'full-width') {
      a = [0, 0.05 + 0.9 * rand()];
      b = [1, 0.05 + 0.9 * rand()];
    } else {
      const min = kind === 'short' ? 0.1 : 0.25;
      const max = kind === 'short' ? 0.25 : 1.2;
      const len = min + (max - min) * rand();
      const ang = rand() * 2 * Math.PI;
      const cx = rand();
      const cy = rand();
      a = [clamp01(cx - (Math.cos(ang) * len) / 2), clamp01(cy - (Math.sin(ang) * len) / 2)];
      b = [clamp01(cx + (Math.cos(ang) * len) / 2), clamp01(cy + (Math.sin(ang) * len) / 2)];
      if (Math.hypot(a[0] - b[0], a[1] - b[1]) < min * 0.8) continue;
    }
    lines.push({ name: `line${lines.length}`, kind, points: [px(a[0], a[1]), px(b[0], b[1])] });
  }
  return lines;
}

/** Convex zones (3 to 6 corners on a random ellipse) of 10-60 % of the scene's width. */
export function randomZones(rand: () => number, n: number, r: Region): ZoneSpec[] {
  const zones: ZoneSpec[] = [];
  while (zones.length < n) {
    const corners = 3 + Math.floor(rand() * 4);
    const rx = 0.05 + 0.25 * rand();
    const ry = 0.05 + 0.25 * rand();
    const cx = rand();
    const cy = rand();
    const angles = Array.from({ length: corners }, () => rand() * 2 * Math.PI).sort((p, q) => p - q);
    const pts = angles.map((t): NormPoint => [round(r.x + clamp01(cx + rx * Math.cos(t)) * r.w), round(r.y + clamp01(cy + ry * Math.sin(t)) * r.h)]);
    if (area(pts) < 0.01 * r.w * r.h) continue;
    zones.push({ name: `zone${zones.length}`, points: pts });
  }
  return zones;
}

function area(p: NormPoint[]): number {
  let s = 0;
  for (let i = 0, j = p.length - 1; i < p.length; j = i++) s += p[j]![0] * p[i]![1] - p[i]![0] * p[j]![1];
  return Math.abs(s) / 2;
}

function clamp01(v: number): number {
  return Math.min(1, Math.max(0, v));
}

function round(v: number): number {
  return Math.round(v * 10000) / 10000;
}
