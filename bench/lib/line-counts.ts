import { CameraCounting } from '../../src/modules/video/counting/camera-counting.js';
import { makeLine, type LineCounts, type NormPoint } from '../../src/modules/video/counting/rules.js';
import type { MotBox } from './mot-metrics.js';

export interface LineSpec {
  name: string;
  points: [NormPoint, NormPoint];
}

/**
 * In/out counts of lines over a set of tracks (ground truth or Vigil's), through
 * the very counting code the daemon runs (bottom-centre anchor, hysteresis), so a
 * difference between the two is the tracker's doing, not the rule's.
 */
export function countLines(tracks: MotBox[], lines: LineSpec[], width: number, height: number, frameStep = 1): Record<string, LineCounts> {
  const counting = new CameraCounting();
  for (const l of lines) counting.setRule(makeLine({ rule_id: l.name, points: l.points }));
  const frames = new Map<number, MotBox[]>();
  for (const b of tracks) {
    const list = frames.get(b.frame) ?? [];
    list.push(b);
    frames.set(b.frame, list);
  }
  const order = [...frames.keys()].sort((a, b) => a - b).filter((f) => (f - 1) % frameStep === 0);
  for (const f of order) {
    const boxes = frames.get(f)!;
    // Ids are never forgotten: a ground-truth person hidden for a while keeps their side.
    counting.process(
      boxes.map((b) => ({ trackId: b.id, x1: b.x, y1: b.y, x2: b.x + b.w, y2: b.y + b.h, score: 1, hits: 1 })),
      [],
      width,
      height,
    );
  }
  return Object.fromEntries(lines.map((l) => [l.name, counting.countsOf(l.name) as LineCounts]));
}
