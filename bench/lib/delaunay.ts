import type { Point } from '../../src/modules/face/face-geometry.js';

/**
 * Delaunay triangulation (Bowyer-Watson) of a few hundred points: the mesh a piecewise-affine
 * warp is drawn on. Quadratic in the point count, which at ~500 points is about a millisecond.
 * Returns vertex index triples, counter-clockwise in a y-down frame's (x, y).
 */
export function delaunay(points: readonly Point[]): Array<[number, number, number]> {
  const n = points.length;
  if (n < 3) return [];
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  for (const [x, y] of points) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  const d = Math.max(maxX - minX, maxY - minY, 1) * 20;
  const mx = (minX + maxX) / 2,
    my = (minY + maxY) / 2;
  const pts: Point[] = [...points, [mx - d, my - d], [mx + d, my - d], [mx, my + d]];
  interface Tri {
    v: [number, number, number];
    cx: number;
    cy: number;
    r2: number;
  }
  const make = (a: number, b: number, c: number): Tri => {
    const [ax, ay] = pts[a]!,
      [bx, by] = pts[b]!,
      [cx, cy] = pts[c]!;
    const det = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by));
    const a2 = ax * ax + ay * ay,
      b2 = bx * bx + by * by,
      c2 = cx * cx + cy * cy;
    const ux = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / det;
    const uy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / det;
    // Counter-clockwise (positive cross product) so callers can read orientation off the triple.
    const v: [number, number, number] = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) >= 0 ? [a, b, c] : [a, c, b];
    return { v, cx: ux, cy: uy, r2: (ax - ux) ** 2 + (ay - uy) ** 2 };
  };
  let tris: Tri[] = [make(n, n + 1, n + 2)];
  for (let i = 0; i < n; i++) {
    const [px, py] = pts[i]!;
    const bad: Tri[] = [];
    const keep: Tri[] = [];
    for (const t of tris) ((px - t.cx) ** 2 + (py - t.cy) ** 2 < t.r2 ? bad : keep).push(t);
    // The hole's boundary: edges of exactly one bad triangle.
    const edges = new Map<number, [number, number]>();
    for (const t of bad) {
      for (let k = 0; k < 3; k++) {
        const a = t.v[k]!,
          b = t.v[(k + 1) % 3]!;
        const key = a < b ? a * 65536 + b : b * 65536 + a;
        if (edges.has(key)) edges.delete(key);
        else edges.set(key, [a, b]);
      }
    }
    for (const [a, b] of edges.values()) {
      const t = make(a, b, i);
      if (Number.isFinite(t.r2)) keep.push(t);
    }
    tris = keep;
  }
  return tris.filter((t) => t.v.every((k) => k < n)).map((t) => t.v);
}
