/** Plain geometry on image coordinates, shared by detection, cropping and reading order. */

export interface Point {
  x: number;
  y: number;
}

/** Four corners clockwise from the top-left of the text: [tl, tr, br, bl]. */
export type Quad = [Point, Point, Point, Point];

export function dist(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** Width along the reading direction and height across it. */
export function quadSize(q: Quad): { width: number; height: number } {
  return {
    width: Math.max(dist(q[0], q[1]), dist(q[3], q[2])),
    height: Math.max(dist(q[0], q[3]), dist(q[1], q[2])),
  };
}

/** Axis-aligned [x1, y1, x2, y2] around a quad. */
export function quadBbox(q: Quad): [number, number, number, number] {
  const xs = q.map((p) => p.x);
  const ys = q.map((p) => p.y);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

export function quadCenter(q: Quad): Point {
  return { x: (q[0].x + q[1].x + q[2].x + q[3].x) / 4, y: (q[0].y + q[1].y + q[2].y + q[3].y) / 4 };
}

/**
 * Orders four corners as PaddleOCR's get_mini_boxes does: the two leftmost points
 * give the top-left (smaller y) and bottom-left, the two rightmost the top-right and
 * bottom-right.
 */
export function orderQuad(points: Point[]): Quad {
  const byX = [...points].sort((a, b) => a.x - b.x);
  const [l0, l1, r0, r1] = byX as [Point, Point, Point, Point];
  const [tl, bl] = l0.y <= l1.y ? [l0, l1] : [l1, l0];
  const [tr, br] = r0.y <= r1.y ? [r0, r1] : [r1, r0];
  return [tl, tr, br, bl];
}

export function scaleQuad(q: Quad, sx: number, sy: number): Quad {
  return q.map((p) => ({ x: p.x * sx, y: p.y * sy })) as Quad;
}

export function clampQuad(q: Quad, width: number, height: number): Quad {
  return q.map((p) => ({ x: Math.min(Math.max(p.x, 0), width - 1), y: Math.min(Math.max(p.y, 0), height - 1) })) as Quad;
}

export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Overlapping tiles of at most `side` x `side` covering a width x height image, half a
 * tile apart along each axis that needs more than one (so anything up to half a tile
 * wide lies whole in some tile). An axis no longer than `side` is one tile.
 */
export function tiles(width: number, height: number, side: number): Rect[] {
  const starts = (len: number): number[] => {
    if (len <= side) return [0];
    const n = Math.ceil((len - side) / (side / 2)) + 1;
    return Array.from({ length: n }, (_, i) => Math.round(((len - side) * i) / (n - 1)));
  };
  const w = Math.min(width, side);
  const h = Math.min(height, side);
  return starts(height).flatMap((top) => starts(width).map((left) => ({ left, top, width: w, height: h })));
}

/**
 * A window around a zone `box` ([x1, y1, x2, y2]) that a tile `t` of a width x height image cut
 * (the box reaches within half its depth, about a row's height, of one of the tile's edges inside the image), or
 * undefined when no edge of the tile cut it. Centred on the box and `side` square, or 1.6 times
 * the box's longer side where that is more (the zone seen is then part of a longer one, which
 * goes on past the cut edge by up to a fifth of the seen part for a 44-character row cut at 36);
 * within the image.
 */
export function zoneWindow(box: [number, number, number, number], t: Rect, width: number, height: number, side: number): Rect | undefined {
  const [x1, y1, x2, y2] = box;
  const near = Math.min(x2 - x1, y2 - y1) / 2;
  const cut =
    (t.left > 0 && x1 - t.left < near) || (t.top > 0 && y1 - t.top < near) || (t.left + t.width < width && t.left + t.width - x2 < near) || (t.top + t.height < height && t.top + t.height - y2 < near);
  if (!cut) return undefined;
  const s = Math.max(side, 1.6 * Math.max(x2 - x1, y2 - y1));
  const w = Math.min(width, Math.round(s));
  const h = Math.min(height, Math.round(s));
  const left = Math.min(width - w, Math.max(0, Math.round((x1 + x2) / 2 - w / 2)));
  const top = Math.min(height - h, Math.max(0, Math.round((y1 + y2) / 2 - h / 2)));
  return { left, top, width: w, height: h };
}
