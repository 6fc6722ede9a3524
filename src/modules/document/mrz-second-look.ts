import { MRZ_ALPHABET, pickFormat } from './mrz-format.js';
import { parseMrz } from './mrz-parser.js';
import { repairMrz, type SlotDist } from './mrz-repair.js';
import { alignLine, fuse, type AlignedSlot, type TimedAlignment } from './mrz-slots.js';
import { alignSpan, rereadCuts, type RereadCut } from './mrz-reread.js';
import { namesLineInDoubt } from './mrz-names-choice.js';
import { windowCuts, type RowsLost } from './mrz-row-windows.js';
import { MORE_PASSES, TIGHT_PASS, type ReadRows, type RowRead } from './mrz-read-passes.js';

/** One read of a row, aligned to the layout, and whether it is a second look (a crop of part of the row, or the whole row) that decoded no filler. */
export interface AlignedRead {
  slots: AlignedSlot[];
  blindToFillers: boolean;
}

const FILLER = MRZ_ALPHABET.length - 1;

/**
 * A row's reads with the evidence of crops blind to fillers left out where another read saw one.
 * A crop of part of a row holding few or no letters (a stretch of a names row's padding, in
 * windows or around a doubtful character) is read poorly by the recogniser, which was trained on
 * text: it decodes the chevrons as `A`, `K`, `S` or nothing (`KKA` for five fillers, `AAAA…` for
 * sixteen), and two passes of such a crop outvote a first read that had them right. Measured
 * against the truth on 350 documents (development seeds 1227463430, and 1232213164 under every
 * real-capture condition): at positions the row's first read read as a filler, a crop that decoded
 * no filler was wrong and the first read right 135 times, the other way round 6; in rows read in
 * windows (no first read), such crops misread 1,200 of 1,338 fillers. So where any other read of a
 * position (the first read, or a crop that did decode fillers) reads a filler, a crop that decoded
 * none does not count there; elsewhere (a document number's digits, say) it counts as before.
 * The same holds for the whole row read again: where the first read read a filler, such a read
 * was wrong and the first read right 82 times, the other way round once (20 rows).
 */
export function withoutBlindFillerReads(variants: AlignedRead[]): AlignedSlot[][] {
  const sawFiller = (v: AlignedRead, k: number) => {
    const { dist, weight } = v.slots[k]!;
    return !v.blindToFillers && weight > 0 && dist.every((p) => p <= dist[FILLER]!);
  };
  return variants.map((v) => (v.blindToFillers ? v.slots.map((slot, k) => (variants.some((o) => sawFiller(o, k)) ? { dist: slot.dist, weight: 0 } : slot)) : v.slots));
}

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
    const variants: AlignedRead[][] = timed.map((t, li) => (isLost(li) ? [] : [{ slots: t.slots, blindToFillers: false }]));
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
        variants[cut.line]!.push({
          slots: cut.span
            ? alignSpan(r.matrix, this.classIdx, r.read, r.cropWidth, { first: t.first, pitch: t.pitch, cropWidth: t.cropWidth, length }, cut.span)
            : alignLine(r.matrix, this.classIdx, r.read, length),
          blindToFillers: !r.read.text.includes('<'),
        });
      });
    return variants.map((v) => fuse(withoutBlindFillerReads(v)));
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
