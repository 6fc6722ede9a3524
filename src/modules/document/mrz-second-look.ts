import { pickFormat } from './mrz-format.js';
import { parseMrz } from './mrz-parser.js';
import { repairMrz, type SlotDist } from './mrz-repair.js';
import { alignLine, fuse, type TimedAlignment } from './mrz-slots.js';
import { alignSpan, rereadCuts, type RereadCut } from './mrz-reread.js';
import { namesLineInDoubt } from './mrz-names-choice.js';
import { windowCuts, type RowsLost } from './mrz-row-windows.js';
import { MORE_PASSES, TIGHT_PASS, type ReadRows, type RowRead } from './mrz-read-passes.js';

/**
 * The reader's second look at a zone whose first read left something in doubt (a failing
 * check, a row of the wrong length, an uncertain name character, a row that lost stretches
 * of text): where to cut again, the other passes' reads of those cuts fused with the first
 * read, and the names row's tight read. Kept apart from MrzReader, which decides when a zone
 * needs it and what to make of the answer.
 */
export class MrzSecondLook {
  constructor(
    /** The reader's cut-and-read for the zone's page and source pixels. */
    private readonly readRows: ReadRows,
    private readonly classIdx: number[],
    private readonly trace?: (msg: string) => void,
  ) {}

  /**
   * Where rows `again` are read a second time: only the spans of a row whose characters are in
   * doubt (mrz-reread.ts), or the whole row where those cannot be told or would cover most of it.
   */
  cuts(set: RowRead[], timed: TimedAlignment[], again: number[], slots: SlotDist[][], length: number, windowed: RowsLost): RereadCut[] {
    const format = pickFormat(set.length, length, slots);
    const checks = parseMrz(repairMrz(format, slots).lines)?.checks;
    // Rows that lost stretches of text are read in windows placed by the reference row's timing (mrz-row-windows.ts).
    return again.flatMap((li) => (windowed.lost.includes(li) ? windowCuts(li, set[li]!.quad, windowed.timing, length) : rereadCuts(format, slots, li, set[li]!, timed[li]!, length, checks)));
  }

  /** The other passes' reads of `cuts`, fused with the first read: each row's own reads, position by position. */
  async readAgain(set: RowRead[], timed: TimedAlignment[], cuts: RereadCut[], length: number, windowed: RowsLost): Promise<SlotDist[][]> {
    const ref = windowed.timing;
    const isLost = (li: number) => windowed.lost.includes(li);
    if (this.trace)
      this.trace(
        `read again ${cuts.map((c) => `${c.line}:${c.span ? `${c.span.span.start}-${c.span.span.end}` : 'row'}`).join(' ')}${windowed.lost.length ? ` (in windows: ${windowed.lost.join(',')})` : ''}`,
      );
    // A row's first read is fused with its second looks, unless it lost stretches of text.
    const variants = timed.map((t, li) => (isLost(li) ? [] : [t.slots]));
    const more = await Promise.all(
      MORE_PASSES.map((pass) =>
        this.readRows(
          cuts.map((c) => c.quad),
          pass,
        ),
      ),
    );
    for (const reads of more)
      reads.forEach((r, i) => {
        const cut = cuts[i]!;
        const row = set[cut.line]!;
        const t = isLost(cut.line) ? ref : { ...timed[cut.line]!, cropWidth: row.cropWidth };
        variants[cut.line]!.push(
          cut.span
            ? alignSpan(r.matrix, this.classIdx, r.read, r.cropWidth, { first: t.first, pitch: t.pitch, cropWidth: t.cropWidth, length }, cut.span)
            : alignLine(r.matrix, this.classIdx, r.read, length),
        );
      });
    return variants.map(fuse);
  }

  /**
   * The names row read once more in a tight crop (see mrz-names-choice), aligned to the layout,
   * when the first read left a names character uncertain; undefined otherwise. Started beside
   * the other passes, so the pool runs it while they run.
   */
  async namesTight(set: RowRead[], length: number, slots: SlotDist[][]): Promise<SlotDist[] | undefined> {
    const line = namesLineInDoubt(set.length, length, slots);
    if (line === undefined || !set[line]) return undefined;
    const [tight] = await this.readRows([set[line].quad], TIGHT_PASS);
    return tight ? fuse([alignLine(tight.matrix, this.classIdx, tight.read, length)]) : undefined;
  }
}
