import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { BadRequestError } from '../../../core/errors.js';
import type { CreateLineBody, CreateZoneBody } from '../schema.js';
import { doubleArea, selfIntersects } from './geometry.js';

/** Points are fractions of the frame: [0,0] top-left, [1,1] bottom-right (independent of the stream's resolution). */
export type NormPoint = [number, number];

export interface LineCounts {
  in: number;
  out: number;
}

export interface ZoneCounts {
  entered: number;
  exited: number;
  /** Tracked people whose anchor is inside the zone now (live, not persisted). */
  occupancy: number;
}

interface RuleBase {
  rule_id: string;
  name: string;
  /** Width of the dead band around the line or zone edge, as a fraction of the frame diagonal. */
  hysteresis: number;
  created_at: string;
}

export interface LineRule extends RuleBase {
  type: 'line';
  points: [NormPoint, NormPoint];
  /** Name of the "in" direction: crossing from the left of points[0]->points[1] to its right, as the image is seen. */
  in_label: string;
  /** Name of the "out" direction (right to left). */
  out_label: string;
}

export interface ZoneRule extends RuleBase {
  type: 'zone';
  points: NormPoint[];
}

export type CountingRule = LineRule | ZoneRule;

/** A rule with its counts, typed together: a line has in/out, a zone entered/exited/occupancy. */
export interface LineView {
  rule: LineRule;
  counts: LineCounts;
}
export interface ZoneView {
  rule: ZoneRule;
  counts: ZoneCounts;
}
export type RuleView = LineView | ZoneView;

export const DEFAULT_HYSTERESIS = 0.02;
export const MAX_ZONE_POINTS = 64;

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function checkId(id: string, what: string): void {
  if (!ID_RE.test(id)) {
    throw new BadRequestError('INVALID_ID', `${what} must be 1-64 characters of letters, digits, '_', '.' or '-', starting with a letter or digit`);
  }
}

/** The points as [x, y] pairs inside the frame (the request schema says so too; rules are also made from stored and test data). */
function normPoints(points: readonly (readonly number[])[]): NormPoint[] {
  return points.map((p) => {
    const [x, y] = p;
    if (p.length !== 2 || x === undefined || y === undefined) throw new BadRequestError('INVALID_POINTS', `point [${p.join(', ')}] is not an [x, y] pair`);
    if (!Number.isFinite(x) || !Number.isFinite(y) || x < 0 || x > 1 || y < 0 || y > 1) {
      throw new BadRequestError('INVALID_POINTS', `point [${p.join(', ')}] is outside the frame: coordinates are fractions between 0 and 1`);
    }
    return [x, y];
  });
}

/** What POST .../lines and .../zones accept (their body schemas). */
export type LineInput = Static<typeof CreateLineBody>;
export type ZoneInput = Static<typeof CreateZoneBody>;

export function makeLine(input: LineInput): LineRule {
  const [a, b] = input.points.length === 2 ? normPoints(input.points) : [];
  if (!a || !b) throw new BadRequestError('INVALID_POINTS', 'a line has exactly two points');
  if (Math.hypot(a[0] - b[0], a[1] - b[1]) < 0.01) throw new BadRequestError('INVALID_POINTS', 'the two points of a line must be at least 1% of the frame apart');
  const rule_id = input.rule_id ?? `line-${randomUUID().slice(0, 8)}`;
  checkId(rule_id, 'rule_id');
  return {
    rule_id,
    type: 'line',
    name: input.name ?? rule_id,
    points: [a, b],
    in_label: input.in_label ?? 'in',
    out_label: input.out_label ?? 'out',
    hysteresis: input.hysteresis ?? DEFAULT_HYSTERESIS,
    created_at: new Date().toISOString(),
  };
}

export function makeZone(input: ZoneInput): ZoneRule {
  if (input.points.length < 3 || input.points.length > MAX_ZONE_POINTS) {
    throw new BadRequestError('INVALID_POINTS', `a zone is a polygon of 3 to ${MAX_ZONE_POINTS} points`);
  }
  const points = normPoints(input.points);
  if (Math.abs(doubleArea(points)) / 2 < 1e-4) throw new BadRequestError('INVALID_POINTS', 'the zone has (almost) no area');
  if (selfIntersects(points)) throw new BadRequestError('INVALID_POINTS', 'the zone polygon crosses itself');
  const rule_id = input.rule_id ?? `zone-${randomUUID().slice(0, 8)}`;
  checkId(rule_id, 'rule_id');
  return {
    rule_id,
    type: 'zone',
    name: input.name ?? rule_id,
    points,
    hysteresis: input.hysteresis ?? DEFAULT_HYSTERESIS,
    created_at: new Date().toISOString(),
  };
}
