import { quadBbox, quadSize, type Point, type Quad } from './geometry.js';
import type { TextBox } from './text-detector.js';

/**
 * Finds where a machine-readable zone can be on an upright page, from the text
 * boxes alone: 2 or 3 long rows of equal height, stacked at a regular pitch and
 * aligned on the left (ICAO prints them in one fixed-pitch block).
 */

export interface Row {
  quad: Quad;
  height: number;
  x1: number;
  x2: number;
  cy: number;
  /** Centre, and unit vector along the reading direction (rows of a turned card slope). */
  c: Point;
  dir: Point;
}

function toRow(quad: Quad): Row {
  const [x1, , x2] = quadBbox(quad);
  const c = { x: (quad[0].x + quad[1].x + quad[2].x + quad[3].x) / 4, y: (quad[0].y + quad[1].y + quad[2].y + quad[3].y) / 4 };
  const dx = (quad[1].x + quad[2].x - quad[0].x - quad[3].x) / 2;
  const dy = (quad[1].y + quad[2].y - quad[0].y - quad[3].y) / 2;
  const len = Math.hypot(dx, dy) || 1;
  return { quad, height: quadSize(quad).height, x1, x2, cy: c.y, c, dir: { x: dx / len, y: dy / len } };
}

/**
 * Where `p` lies relative to `row`'s centre line: across it (positive below) and along
 * it. On a card turned by 17 degrees, rows one pitch apart differ in y by up to a
 * third of their length wherever the detector cut them; measured across their own
 * direction they stay one pitch apart.
 */
function relative(row: Row, p: Point): { across: number; along: number } {
  const vx = p.x - row.c.x;
  const vy = p.y - row.c.y;
  return { across: vx * -row.dir.y + vy * row.dir.x, along: vx * row.dir.x + vy * row.dir.y };
}

/** Distance from row a's centre line to row b's centre, across a's direction. */
export function rowGap(a: Row, b: Row): number {
  return Math.abs(relative(a, b.c).across);
}

/** A row's left end (middle of its left edge). */
function leftEnd(r: Row): Point {
  return { x: (r.quad[0].x + r.quad[3].x) / 2, y: (r.quad[0].y + r.quad[3].y) / 2 };
}

/**
 * How far a box's measured direction can be off its text's: the detector's rectangle fits the
 * ink to about a third of its height at either end, so a short box (a few characters) tells its
 * direction loosely and a long one closely.
 */
function directionSlack(r: Row): number {
  return Math.atan2(DIRECTION_FIT * r.height, Math.max(r.height, r.x2 - r.x1));
}

/** A box's ends fit its ink to about this share of its height (see directionSlack). */
const DIRECTION_FIT = 0.35;

/** Two boxes of one printed row agree in direction to this much beyond what their lengths can tell (radians, 2 degrees). */
const SAME_ROW_TURN = (2 * Math.PI) / 180;

/**
 * Whether two boxes run in one direction, as the boxes of one printed row do, perspective or not
 * (a straight row stays straight in a photo). A card tilted on a table beside other papers
 * showed its zone's rows at 20 degrees next to a paper's printed line at 10, end to end: joined,
 * the line's words became the start of the zone's row, and the zone was not found.
 */
function sameDirection(a: Row, b: Row): boolean {
  const turn = Math.abs(Math.atan2(a.dir.x * b.dir.y - a.dir.y * b.dir.x, a.dir.x * b.dir.x + a.dir.y * b.dir.y));
  return turn <= SAME_ROW_TURN + directionSlack(a) + directionSlack(b);
}

/** Joins boxes that continue each other on one text row (the detector splits a row at wide gaps). */
export function mergeRows(boxes: TextBox[]): Row[] {
  const rows = boxes.map((b) => toRow(b.quad)).sort((a, b) => a.x1 - b.x1);
  const out: Row[] = [];
  for (const r of rows) {
    const host = out.find(
      (o) =>
        Math.abs(relative(o, r.c).across) < Math.min(o.height, r.height) * 0.5 &&
        Math.max(o.height, r.height) / Math.min(o.height, r.height) < 1.5 &&
        r.x1 - o.x2 < 2 * Math.max(o.height, r.height) &&
        r.x1 > o.x1 &&
        sameDirection(o, r),
    );
    if (host) {
      const quad: Quad = [host.quad[0], r.x2 > host.x2 ? r.quad[1] : host.quad[1], r.x2 > host.x2 ? r.quad[2] : host.quad[2], host.quad[3]];
      Object.assign(host, toRow(quad));
    } else {
      out.push({ ...r });
    }
  }
  return out;
}

/**
 * Stacks of rows that could be an MRZ, most promising first: each starts from a
 * long row and takes rows above and below of similar height, left edge and pitch.
 */
export function mrzCandidates(rows: Row[], maxGroups = 4): Row[][] {
  const long = rows.filter((r) => (r.x2 - r.x1) / r.height >= 8);
  const groups: Row[][] = [];
  // MRZ rows are the page's longest text for their height: seeds by aspect ratio.
  const aspect = (r: Row) => (r.x2 - r.x1) / r.height;
  for (const seed of [...long].sort((a, b) => aspect(b) - aspect(a))) {
    if (groups.some((g) => g.includes(seed))) continue;
    // Same height, left ends aligned along the seed's direction (ICAO's fixed block).
    const similar = (r: Row) =>
      Math.max(r.height, seed.height) / Math.min(r.height, seed.height) < 1.45 && Math.abs(relative(seed, leftEnd(r)).along - relative(seed, leftEnd(seed)).along) < 2 * seed.height && r !== seed;
    const group = [seed];
    for (const dir of [-1, 1]) {
      let cur = seed;
      for (;;) {
        const gap = (r: Row) => relative(cur, r.c).across * dir;
        const next = rows.filter((r) => similar(r) && !group.includes(r) && gap(r) > 0.7 * seed.height && gap(r) < 2.6 * seed.height).sort((a, b) => gap(a) - gap(b))[0];
        if (!next) break;
        group.push(next);
        cur = next;
      }
    }
    group.sort((a, b) => relative(seed, a.c).across - relative(seed, b.c).across);
    // An MRZ has at most three rows: keep the three around the seed with the most text.
    if (group.length > 3) {
      const at = group.indexOf(seed);
      let bestStart = Math.max(0, at - 2);
      let bestW = -1;
      for (let st = Math.max(0, at - 2); st <= Math.min(at, group.length - 3); st++) {
        const w = width(group.slice(st, st + 3));
        if (w > bestW) [bestW, bestStart] = [w, st];
      }
      group.splice(0, group.length, ...group.slice(bestStart, bestStart + 3));
    }
    groups.push(group);
    if (groups.length >= maxGroups) break;
  }
  // Stacks of two or more rows first, then in seed order (longest rows for their height).
  return groups.sort((a, b) => Number(b.length >= 2) - Number(a.length >= 2));
}

function width(g: Row[]): number {
  return g.reduce((s, r) => s + r.x2 - r.x1, 0);
}

/**
 * The block's rows with each short row turned about its centre to the direction of the
 * block's longest row. ICAO prints the rows parallel; the direction of a box that holds only
 * a row's first name (its padding faint, the rest undetected) is measured over a few
 * characters, and stretched across the block it can drift off its own row (a 14-character
 * box, extended to 44, read "P<" and nothing more).
 */
export function alignToBlock(group: Row[]): Row[] {
  const longest = group.reduce((a, b) => (b.x2 - b.x1 > a.x2 - a.x1 ? b : a));
  const angle = Math.atan2(longest.dir.y, longest.dir.x);
  return group.map((r) => {
    if (r === longest || r.x2 - r.x1 >= SHORT_ROW_SHARE * (longest.x2 - longest.x1)) return r;
    const turn = angle - Math.atan2(r.dir.y, r.dir.x);
    const cos = Math.cos(turn);
    const sin = Math.sin(turn);
    const quad = r.quad.map((p) => ({ x: r.c.x + (p.x - r.c.x) * cos - (p.y - r.c.y) * sin, y: r.c.y + (p.x - r.c.x) * sin + (p.y - r.c.y) * cos })) as Quad;
    return toRow(quad);
  });
}

/** A row shorter than this share of its block's longest row takes the longest row's direction. */
const SHORT_ROW_SHARE = 0.6;

/** A row's quad stretched along its own direction to span [x1, x2] (the block's full width). */
export function extendRow(row: Row, x1: number, x2: number): Quad {
  const [tl, tr, br, bl] = row.quad;
  const L: Point = { x: (tl.x + bl.x) / 2, y: (tl.y + bl.y) / 2 };
  const R: Point = { x: (tr.x + br.x) / 2, y: (tr.y + br.y) / 2 };
  const dx = R.x - L.x || 1e-6;
  const slope = (R.y - L.y) / dx;
  const half = { x: (bl.x - tl.x + br.x - tr.x) / 4, y: (bl.y - tl.y + br.y - tr.y) / 4 };
  const at = (x: number): Point => ({ x, y: L.y + slope * (x - L.x) });
  const a = at(x1);
  const b = at(x2);
  return [
    { x: a.x - half.x, y: a.y - half.y },
    { x: b.x - half.x, y: b.y - half.y },
    { x: b.x + half.x, y: b.y + half.y },
    { x: a.x + half.x, y: a.y + half.y },
  ];
}

/**
 * The quad grown by `k` across its reading direction, about its centre line. The
 * detector's boxes hug MRZ glyphs; the recogniser reads small, blurred OCR-B far
 * better with some margin above and below (on the shared MRZ set, raw character
 * errors fell from 55 to 30 at 1.35 with the same crops otherwise).
 */
export function growAcross(quad: Quad, k: number): Quad {
  const [tl, tr, br, bl] = quad;
  const side = (top: Point, bottom: Point): [Point, Point] => {
    const cx = (top.x + bottom.x) / 2;
    const cy = (top.y + bottom.y) / 2;
    const hx = ((bottom.x - top.x) / 2) * k;
    const hy = ((bottom.y - top.y) / 2) * k;
    return [
      { x: cx - hx, y: cy - hy },
      { x: cx + hx, y: cy + hy },
    ];
  };
  const [a, d] = side(tl, bl);
  const [b, c] = side(tr, br);
  return [a, b, c, d];
}

/** A row one pitch above (-1) or below (+1) a block, for a TD1 line the detector missed. */
export function shiftedRow(row: Row, pitch: number, dir: -1 | 1): Row {
  // Across the row's own direction, so a turned card's next row is found too.
  const quad = row.quad.map((p) => ({ x: p.x - row.dir.y * dir * pitch, y: p.y + row.dir.x * dir * pitch })) as Quad;
  return toRow(quad);
}
