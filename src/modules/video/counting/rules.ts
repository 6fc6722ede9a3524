import { randomUUID } from 'node:crypto';
import { BadRequestError } from '../../../core/errors.js';
import { doubleArea, selfIntersects, type Pt } from './geometry.js';

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

export const DEFAULT_HYSTERESIS = 0.02;
export const MAX_ZONE_POINTS = 64;

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function checkId(id: string, what: string): void {
  if (!ID_RE.test(id)) {
    throw new BadRequestError('INVALID_ID', `${what} must be 1-64 characters of letters, digits, '_', '.' or '-', starting with a letter or digit`);
  }
}

function checkPoints(points: NormPoint[]): void {
  for (const p of points) {
    if (!Number.isFinite(p[0]) || !Number.isFinite(p[1]) || p[0] < 0 || p[0] > 1 || p[1] < 0 || p[1] > 1) {
      throw new BadRequestError('INVALID_POINTS', `point [${p.join(', ')}] is outside the frame: coordinates are fractions between 0 and 1`);
    }
  }
}

export interface LineInput {
  rule_id?: string;
  name?: string;
  points: NormPoint[];
  in_label?: string;
  out_label?: string;
  hysteresis?: number;
}

export interface ZoneInput {
  rule_id?: string;
  name?: string;
  points: NormPoint[];
  hysteresis?: number;
}

export function makeLine(input: LineInput): LineRule {
  if (input.points.length !== 2) throw new BadRequestError('INVALID_POINTS', 'a line has exactly two points');
  checkPoints(input.points);
  const [a, b] = input.points as [NormPoint, NormPoint];
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
  checkPoints(input.points);
  if (Math.abs(doubleArea(input.points as Pt[])) / 2 < 1e-4) throw new BadRequestError('INVALID_POINTS', 'the zone has (almost) no area');
  if (selfIntersects(input.points as Pt[])) throw new BadRequestError('INVALID_POINTS', 'the zone polygon crosses itself');
  const rule_id = input.rule_id ?? `zone-${randomUUID().slice(0, 8)}`;
  checkId(rule_id, 'rule_id');
  return {
    rule_id,
    type: 'zone',
    name: input.name ?? rule_id,
    points: input.points,
    hysteresis: input.hysteresis ?? DEFAULT_HYSTERESIS,
    created_at: new Date().toISOString(),
  };
}
