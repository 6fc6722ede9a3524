import { pickFormat } from './mrz-format.js';
import { withFillerEvidence, type FillerReport } from './mrz-filler-cells.js';
import { applyGlyphEvidence, type GlyphReport } from './mrz-glyphs.js';
import { parseMrz } from './mrz-parser.js';
import type { RowRead } from './mrz-read-passes.js';
import { repairMrz, type SlotDist } from './mrz-repair.js';
import type { GlyphTemplates } from './ocrb-templates.js';

/**
 * The pixel stages of a zone read, in order: the document's own fillers (any font), then the
 * glyph templates of the zone's font where the zone needs them. Each re-weighs the recogniser's
 * distributions from the crops of the rows; the repair and its check digits come after.
 */

/** A zone with a character read below this (or a failing check) asks for glyph evidence. */
const GLYPH_ASK_BELOW = 0.9;

/** The distributions re-weighed by pixel evidence from the crops of `set` (only the fillers' without templates). */
export async function withPixelEvidence(glyphs: GlyphTemplates[], classIdx: number[], set: RowRead[], read: SlotDist[][], length: number, trace?: (msg: string) => void): Promise<SlotDist[][]> {
  const format = pickFormat(set.length, length, read);
  // Fillers told by the document's own filler glyph (mrz-filler-cells.ts), in any font.
  const fillerReport: FillerReport = { fillers: 0, lifted: [], kept: [] };
  const slots = withFillerEvidence(format, set, read, classIdx, fillerReport);
  if (trace)
    trace(
      `fillers ${fillerReport.fillers} low ${fillerReport.fillerLow?.toFixed(2)} other ${fillerReport.otherHigh?.toFixed(2)} lifted ${fillerReport.lifted.join(',')} kept ${fillerReport.kept.join(',')}`,
    );
  if (glyphs.length === 0) return slots;
  // A zone read surely everywhere whose checks all hold gains nothing from its pixels.
  const unsure = slots.some((line) => line.some((d) => Math.max(...d) < GLYPH_ASK_BELOW));
  if (!unsure && parseMrz(repairMrz(format, slots).lines)?.result.check_digits_valid) return slots;
  const report: GlyphReport = { rows: [] };
  const t0 = performance.now();
  const out = await applyGlyphEvidence(glyphs, format, set, slots, classIdx, report);
  if (trace)
    trace(
      `glyphs ${(performance.now() - t0).toFixed(1)} ms ${report.font ?? '-'} ${report.rows.map((r) => `fit=${r.fit.toFixed(2)} agree=${r.agreement.toFixed(2)} ${r.changed.join(',')}`).join(' | ')}`,
    );
  return out;
}
