import { inkOf, type InkPlane } from './glyph-cells.js';
import type { GlyphRow } from './mrz-glyphs.js';
import type { SlotDist } from './mrz-repair.js';
import { alignLineTimed } from './mrz-slots.js';
import { rowsLostInStretches } from './mrz-row-windows.js';
import { WIDTH_STEP } from './text-recognizer.js';

/** A zone row's crop as ink, cut into its cells at the row's CTC timing. */
export interface RowCells {
  ink: InkPlane;
  /** Crop column of cell k's centre, and the pitch in columns. */
  centre: (k: number) => number;
  pitch: number;
  /** The decoded character each position was aligned to (undefined: a gap the alignment filled). */
  owner: (number | undefined)[];
}

/**
 * The cells of each row of a zone as its first read timed them; undefined for a row without a
 * read, or whose read lost stretches of text (mrz-row-windows.ts): its timing places no cell.
 */
export function zoneRowCells(rows: (GlyphRow | undefined)[], slots: SlotDist[][], classIdx: number[]): (RowCells | undefined)[] {
  const timings = slots.map((line, li) => {
    const row = rows[li];
    return row ? alignLineTimed(row.matrix, classIdx, row.read, line.length) : undefined;
  });
  const timed = rows.flatMap((r, li) => (r && timings[li] ? [{ li, row: { read: r.read, cropWidth: r.line.width, first: timings[li].first, pitch: timings[li].pitch } }] : []));
  const lost = new Set(
    timed.length
      ? rowsLostInStretches(
          timed.map((t) => t.row),
          slots[0]!.length,
        ).lost.map((i) => timed[i]!.li)
      : [],
  );
  return slots.map((_, li) => {
    const row = rows[li];
    const timing = timings[li];
    if (!row || !timing || lost.has(li)) return undefined;
    return {
      ink: inkOf(row.line.data, row.line.width, row.line.height),
      centre: (k: number) => (timing.first + k * timing.pitch + 0.5) * WIDTH_STEP,
      pitch: timing.pitch * WIDTH_STEP,
      owner: timing.owner,
    };
  });
}
