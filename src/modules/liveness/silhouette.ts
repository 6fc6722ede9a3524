import type { FrameSample } from './capture-evidence.js';
import { luma } from '../../core/luma.js';

/**
 * Whether the head's outline moved between the baseline frame a turn or look is measured from
 * and the frame that completes it: the 3-D evidence a flat photo cannot give.
 *
 * A real head turning 20 degrees changes its silhouette against the background: the far cheek
 * and temple slide behind the head, an ear appears or hides, the hair's edge moves; looking up
 * or down moves the chin over the neck and the hairline. A 2-D edit of one photo that moves the
 * features (squeezed about the nose, the inner face slid inside the outline) leaves the band
 * just outside the face box as it was, and the landmark model then reads a turn from features
 * that moved against an outline that did not. Noise added to every frame does not help the
 * edit: the band is compared in blocks of about a twelfth of the face width, whose means
 * average pixel noise away.
 */

export interface SilhouetteSettings {
  /** A block counts as changed when its mean grey level moved by at least this much. */
  blockChange: number;
  /** Fewest changed blocks, as a fraction of the band, for the outline to count as moved. */
  minChangedFraction: number;
}

export const SILHOUETTE: SilhouetteSettings = { blockChange: 6, minChangedFraction: 0.2 };

/** Blocks per face width: coarse enough to average noise, fine enough to see an outline move. */
const BLOCKS_PER_FACE = 12;

/**
 * The band a turn (yaw: beside the cheeks, ears and temples) or look (pitch: above the
 * forehead and below the chin) must change, in face-box units from the baseline frame's box
 * centre: from the box's edge out to the sampled margin.
 */
function inBand(axis: 'yaw' | 'pitch', u: number, v: number): boolean {
  const [across, along] = axis === 'yaw' ? [Math.abs(u), Math.abs(v)] : [Math.abs(v), Math.abs(u)];
  return across >= 1 && across <= 1.5 && along <= 1;
}

/** Mean grey of the block of `size` x `size` grid points at absolute grid cell (gx, gy), or NaN when the sample lacks part of it. */
function blockMean(s: FrameSample, gx: number, gy: number, size: number): number {
  const c0 = gx - s.x0 / s.stride;
  const r0 = gy - s.y0 / s.stride;
  if (c0 < 0 || r0 < 0 || c0 + size > s.cols || r0 + size > s.rows) return NaN;
  let sum = 0;
  for (let r = r0; r < r0 + size; r++) for (let c = c0; c < c0 + size; c++) sum += luma(s.rgb, (r * s.cols + c) * 3);
  return sum / (size * size);
}

/**
 * Fraction of the band's blocks (around the neutral frame's face box) whose mean grey level
 * changed by at least `blockChange` between `base` and `cur`; 1 when the two cannot be compared
 * (a different capture geometry is judged elsewhere), 0 when the band is out of view (the
 * outline must be seen to have moved).
 */
export function silhouetteChange(base: FrameSample, cur: FrameSample, axis: 'yaw' | 'pitch', settings: SilhouetteSettings = SILHOUETTE): number {
  if (base.stride !== cur.stride || base.width !== cur.width || base.height !== cur.height) return 1;
  const [x1, y1, x2, y2] = base.box;
  const cx = (x1 + x2) / 2;
  const cy = (y1 + y2) / 2;
  const hw = Math.max(1, (x2 - x1) / 2);
  const hh = Math.max(1, (y2 - y1) / 2);
  const size = Math.max(1, Math.round((x2 - x1) / BLOCKS_PER_FACE / base.stride));
  const gx0 = base.x0 / base.stride;
  const gy0 = base.y0 / base.stride;
  let band = 0;
  let changed = 0;
  for (let by = gy0; by + size <= gy0 + base.rows; by += size) {
    for (let bx = gx0; bx + size <= gx0 + base.cols; bx += size) {
      const u = ((bx + size / 2) * base.stride - cx) / hw;
      const v = ((by + size / 2) * base.stride - cy) / hh;
      if (!inBand(axis, u, v)) continue;
      const a = blockMean(base, bx, by, size);
      const b = blockMean(cur, bx, by, size);
      // Only blocks both frames sampled (each samples around its own face box).
      if (Number.isNaN(a) || Number.isNaN(b)) continue;
      band++;
      if (Math.abs(a - b) >= settings.blockChange) changed++;
    }
  }
  return band === 0 ? 0 : changed / band;
}
