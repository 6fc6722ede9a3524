/** Plane geometry for counting rules, in pixels of the processed frame (y grows downward). */
export type Pt = readonly [number, number];

/**
 * Signed distance of p from the infinite line a->b: positive on the right of a->b as
 * the image is seen (y down), negative on its left.
 */
export function signedDistance(a: Pt, b: Pt, p: Pt): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = Math.hypot(dx, dy);
  if (len === 0) return 0;
  return (dx * (p[1] - a[1]) - dy * (p[0] - a[0])) / len;
}

/**
 * Whether the path p->q crosses the segment a->b, the segment lengthened by `slack`
 * pixels at each end (a person clipping the end of a line still crossed it).
 */
export function pathCrossesSegment(p: Pt, q: Pt, a: Pt, b: Pt, slack = 0): boolean {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = Math.hypot(dx, dy);
  if (len === 0) return false;
  const ex = (dx / len) * slack;
  const ey = (dy / len) * slack;
  const a2: Pt = [a[0] - ex, a[1] - ey];
  const b2: Pt = [b[0] + ex, b[1] + ey];
  const d1 = cross(a2, b2, p);
  const d2 = cross(a2, b2, q);
  const d3 = cross(p, q, a2);
  const d4 = cross(p, q, b2);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0) || d3 === 0 || d4 === 0);
}

function cross(o: Pt, a: Pt, b: Pt): number {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/** Even-odd point-in-polygon. */
export function insidePolygon(p: Pt, poly: readonly Pt[]): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i]!;
    const [xj, yj] = poly[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Distance from p to the nearest edge of the polygon. */
export function distanceToEdges(p: Pt, poly: readonly Pt[]): number {
  let best = Infinity;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) best = Math.min(best, distanceToSegment(p, poly[j]!, poly[i]!));
  return best;
}

export function distanceToSegment(p: Pt, a: Pt, b: Pt): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const l2 = dx * dx + dy * dy;
  const t = l2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

/** Twice the signed area (shoelace); 0 for a degenerate polygon. */
export function doubleArea(poly: readonly Pt[]): number {
  let s = 0;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) s += poly[j]![0] * poly[i]![1] - poly[i]![0] * poly[j]![1];
  return s;
}

/** Whether any two non-adjacent edges of the polygon cross (a bow-tie zone is ambiguous). */
export function selfIntersects(poly: readonly Pt[]): boolean {
  const n = poly.length;
  for (let i = 0; i < n; i++) {
    const a = poly[i]!;
    const b = poly[(i + 1) % n]!;
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      const c = poly[j]!;
      const d = poly[(j + 1) % n]!;
      const d1 = cross(a, b, c);
      const d2 = cross(a, b, d);
      const d3 = cross(c, d, a);
      const d4 = cross(c, d, b);
      if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
    }
  }
  return false;
}
