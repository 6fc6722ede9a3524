import type { RgbImage } from '../../core/image-decode.js';
import { clampQuad, type Point, type Quad } from './geometry.js';
import { pickFormat } from './mrz-format.js';
import { parseMrz, type MrzResult, type ParsedMrz } from './mrz-parser.js';
import { repairMrz, type SlotDist } from './mrz-repair.js';
import { alignToBlock, extendRow, growAcross, mergeRows, mrzCandidates, rowGap, shiftedRow, type Row } from './mrz-locator.js';
import { alignLine, alignLineTimed, distsToText, estimateCells, fuse, mrzClassIndices, readMrzLine, type AlignedSlot } from './mrz-slots.js';
import { widthFromExtents, zonePitch, zoneRowExtents } from './mrz-row-end.js';
import { heldToLeftEdge } from './mrz-row-start.js';
import { rowsToReadAgain } from './mrz-reread.js';
import { mrzConfidence } from './mrz-confidence.js';
import { namesLineInDoubt, rowSureness, surerNamesPossible, touchedPositions, withSurerNames } from './mrz-names-choice.js';
import { canBeMrzRow, LONG_ROW_CHARS, mrzLike, opensLikeTd1SecondRow, zoneRowsKept, zoneRowSets } from './mrz-zone-rows.js';
import type { OcrEngine, UprightPage } from './ocr-engine.js';
import { REC_HEIGHT } from './text-recognizer.js';
import type { CropOptions } from './line-crop.js';
import { withPixelEvidence } from './mrz-pixel-evidence.js';
import { rowLostCells, rowsLostInStretches } from './mrz-row-windows.js';
import { FIRST_PASS, MRZ_ROW_GROWTH, TIGHT_PASS, type ReadPass, type RowRead } from './mrz-read-passes.js';
import { MrzSecondLook } from './mrz-second-look.js';
import type { GlyphTemplates } from './ocrb-templates.js';
import { LineReadCache } from './line-read-cache.js';
import { mrzScore, plausible } from './mrz-reading-score.js';

export interface MrzReading {
  /** The parse, its result completed with field_confidence and warnings. */
  parsed: ParsedMrz & { result: MrzResult };
  /** Mean character probability of the zone's lines. */
  confidence: number;
  /** The zone's rows in the upright page, and each row's mean character probability. */
  quads: Quad[];
  lineConfidences: number[];
}

/**
 * The pixels the page was made from (the upload, before enlargement, rectification
 * and turns) and the way there from page coordinates. The extra reads of a zone cut
 * their rows from it with bilinear interpolation: a second, softer enlargement of
 * small print than the page's Lanczos one, whose mistakes differ.
 */
export interface SourceView {
  image: RgbImage;
  toSource: (p: Point) => Point;
}

/** A block measuring fewer cells than this (a TD1's 30, less three for the measure's error) was cut short. */
const SHORTER_THAN_ANY_LAYOUT = 27;

/**
 * A names row whose first read is this sure on average (rowSureness) waits for the second look
 * before its tight read is decided: the fused row is then most often too sure for the tight one
 * to replace it (see surerNamesPossible), and the read is left out.
 */
const NAMES_SURE_ENOUGH_TO_WAIT = 0.95;

/**
 * Reads a machine-readable zone: candidate blocks of rows from the detector, each
 * row re-cut across the block's full width (the detector often drops a trailing
 * run of fillers) from the full-resolution page, read over the MRZ alphabet,
 * aligned to the layout's fixed length, repaired with field classes and check
 * digits, and parsed. Returns undefined when no block reads as an MRZ.
 */
export class MrzReader {
  private readonly classIdx: number[];
  /** Crops already read in this request (see LineReadCache). */
  private readonly reads = new LineReadCache();

  constructor(
    private readonly engine: OcrEngine,
    /** Receives each row's raw reading (for the evaluation bench and debugging). */
    private readonly trace?: (msg: string) => void,
    /** Templates for the glyph classifier, OCR-B first (none: the recogniser decides alone). */
    private readonly glyphs: GlyphTemplates[] = [],
  ) {
    this.classIdx = mrzClassIndices(engine.dictionary);
  }

  /** `maxGroups` bounds how many candidate blocks are read (most promising first). */
  async read(page: UprightPage, source?: SourceView, maxGroups?: number): Promise<MrzReading | undefined> {
    const rows = mergeRows(page.boxes);
    const src = source ?? { image: page.image, toSource: (p: Point) => p };
    let best: MrzReading | undefined;
    for (const group of mrzCandidates(rows, maxGroups)) {
      const reading = await this.readGroup(page.image, src, group);
      if (reading && (!best || mrzScore(reading) > mrzScore(best))) best = reading;
      if (best?.parsed.result.check_digits_valid) break;
    }
    return best;
  }

  /**
   * The rows of the most likely zone (the first candidate stack), cut as they will
   * be read: a full scan reads the page's other boxes while the zone is read.
   */
  likelyZone(page: UprightPage): Quad[] {
    const found = mrzCandidates(mergeRows(page.boxes))[0];
    if (!found) return [];
    const group = alignToBlock(found);
    const { x1, x2 } = blockSpan(group);
    return group.map((r) => extendRow(r, x1, x2));
  }

  private async readRows(img: RgbImage, rows: Row[], x1: number, x2: number): Promise<RowRead[]> {
    const quads = rows.map((r) => clampQuad(extendRow(r, x1, x2), img.width, img.height));
    return this.readQuads(img, undefined, quads, FIRST_PASS);
  }

  /** Reads rows given as page quads, cut from the page or (with `source`) from the source pixels. */
  private async readQuads(img: RgbImage, source: SourceView | undefined, quads: Quad[], pass: ReadPass): Promise<RowRead[]> {
    const { stretch } = pass;
    const grown = quads.map((q) => clampQuad(growAcross(q, pass.growth ?? MRZ_ROW_GROWTH), img.width, img.height));
    const from = pass.fromSource && source ? source.image : img;
    const cut = pass.fromSource && source ? grown.map((q) => q.map(source.toSource) as Quad) : grown;
    // The extra reads (from the source) of a dim row see its levels stretched, the first read
    // does not: averaged, the two views of faint print fix more than they break; stretching
    // every read of a dim row broke as many as it fixed (docs/documents.md, the MRZ paragraph).
    const opts: CropOptions = { height: REC_HEIGHT, stretch, interpolation: pass.fromSource ? 'linear' : 'cubic', neutralInk: true, stretchDim: pass.fromSource };
    const lines = await this.reads.read(from, cut, opts, (missing) => this.engine.readQuads(from, missing, opts));
    const reads = quads.map((quad, i) => ({ quad, matrix: lines[i]!.matrix, read: readMrzLine(lines[i]!.matrix, this.classIdx), cropWidth: lines[i]!.width, stretch, line: lines[i]!.line }));
    if (this.trace) for (const r of reads) this.trace(`stretch ${stretch}${pass.fromSource ? ' source' : ''} w=${r.cropWidth} T=${r.matrix.steps} ${r.read.text}`);
    return reads;
  }

  /**
   * The rows re-read with the block lengthened on the right to hold `target` characters at the
   * pitch the rows were read at (the median of those whose pitch can be told: a names row of
   * merged fillers has too few adjacent characters to tell it); undefined when the pitch
   * cannot be told or the block already holds nearly that many. `reads` were cut over [x1, x2];
   * the new reads are cut over [x1, to].
   */
  private async readLonger(img: RgbImage, rows: Row[], x1: number, x2: number, reads: RowRead[], target: number): Promise<{ reads: RowRead[]; to: number } | undefined> {
    const p = zonePitch(reads, x1, x2);
    if (!p) return undefined;
    const more = (target - p.cells + 1) * p.pitchX;
    if (!(more > 2 * p.pitchX)) return undefined;
    return { reads: await this.readRows(img, rows, x1, x2 + more), to: x2 + more };
  }

  /**
   * Each row's extent in cells at the rows' pitch (see mrz-row-end): the rows' own reads, and
   * past the block's end `x2` a read of only the stretch up to where a 44-character row would
   * end, with two cells before it for context, in which the zone's own filler is also looked
   * for. Undefined when the pitch cannot be told.
   */
  private async rowExtents(img: RgbImage, rows: Row[], x1: number, x2: number, reads: RowRead[]): Promise<(number | undefined)[] | undefined> {
    const p = zonePitch(reads, x1, x2);
    if (!p) return undefined;
    const from = x2 - 2 * p.pitchX;
    const to = Math.min(img.width - 1, x1 + 45.5 * p.pitchX);
    const tails = to > x2 + p.pitchX ? await this.readRows(img, rows, from, to) : undefined;
    // The rows' own crops were cut within the page (see readRows): their span, clamped so.
    const own = { from: Math.max(0, x1), to: Math.min(img.width - 1, x2) };
    const owns = reads.map((r) => ({ ...r, ...own }));
    return zoneRowExtents(
      owns,
      tails?.map((r) => ({ ...r, from, to })),
      p.pitchX,
    );
  }

  private align(r: RowRead, length: number): AlignedSlot[] {
    return alignLine(r.matrix, this.classIdx, r.read, length);
  }

  private async readGroup(img: RgbImage, source: SourceView, detected: Row[]): Promise<MrzReading | undefined> {
    const group = alignToBlock(detected);
    const h = Math.max(...group.map((r) => r.height));
    const { x1, x2 } = blockSpan(group);
    const all = await this.readRows(img, group, x1, x2);
    if (this.trace) this.trace(`block x ${x1.toFixed(0)}-${x2.toFixed(0)} cells ${all.map((r) => estimateCells(r.matrix, r.read)?.toFixed(1) ?? '?').join(',')}`);
    // Rows that can be MRZ text, rows cut before their padding beside them (see zoneRowsKept),
    // and at least one that clearly is MRZ-like below; an MRZ is the last 2 or 3.
    const keepRow = zoneRowsKept(all.map((r) => r.read.text));
    const kept = group.filter((_, i) => keepRow[i]);
    let reads = all.filter((_, i) => keepRow[i]);
    // The detected row each read was cut from (a row one pitch off for a missed TD1 row).
    const rowOf = new Map<RowRead, Row>(reads.map((r, i) => [r, kept[i]!]));
    // Where each read's crop ended on the right (x2 unless read longer).
    const endOf = new Map<RowRead, number>();
    const remember = (rs: RowRead[], rows: Row[], to = x2) =>
      rs.forEach((r, i) => {
        rowOf.set(r, rows[i]!);
        endOf.set(r, to);
      });
    if (!reads.some((r) => mrzLike(r.read.text))) return undefined;
    // Every row cut inside its padding: the block itself is short of the layout (a TD1 whose
    // rows all end in fillers after 15-19 characters, or three rows that measure fewer cells
    // than a TD1, the first row's box ending with its document number). Read on at the rows'
    // own pitch. (Two rows are measured past their end below.)
    const blockCells = reads.length === 3 ? zonePitch(reads, x1, x2)?.cells : undefined;
    if (reads.length >= 2 && (reads.every((r) => r.read.text.length < LONG_ROW_CHARS) || (blockCells !== undefined && blockCells < SHORTER_THAN_ANY_LAYOUT))) {
      const target = reads.length === 3 || opensLikeTd1SecondRow(reads[0]!.read.text) ? 30 : 44;
      const longer = await this.readLonger(img, kept, x1, x2, reads, target);
      if (longer) {
        remember(longer.reads, kept, longer.to);
        reads = longer.reads;
      }
    }
    const td1Tail = reads.length === 2 && opensLikeTd1SecondRow(reads[0]!.read.text);
    if (reads.length === 2 && (nearestLength(reads) === 30 || td1Tail)) {
      // A TD1 card whose third row (or, when the first row read opens with a birth date, whose
      // first row) the detector missed: read one pitch below and above.
      const first = kept[0]!;
      const last = kept[1]!;
      const pitch = rowGap(first, last) || 1.6 * h;
      const shifted = [shiftedRow(last, pitch, 1), shiftedRow(first, pitch, -1)];
      const extra = await this.readRows(img, shifted, x1, x2);
      remember(extra, shifted);
      const below = extra[0]!;
      const above = extra[1]!;
      const found = (r: RowRead) => mrzLike(r.read.text) && canBeMrzRow(r.read.text);
      if (!td1Tail && found(below)) reads = [...reads, below];
      else if (found(above)) reads = [above, ...reads];
    }
    // A two-row zone is 36 or 44 wide, and its rows' boxes often end inside their padding
    // (nothing in a visa's text tells MRV-A from MRV-B, and a names row cut after a letter
    // passes a TD2's checks): each row's extent, read on past the block's end at the rows'
    // pitch (see mrz-row-end), says which. When the rows disagree or cannot tell, the zone is
    // read as measured and a warning says so, rather than a guess made quietly.
    let widthUnsure = false;
    let measured36 = false;
    if (reads.length === 2 && nearestLength(reads) !== 44) {
      const extents = await this.rowExtents(img, kept, x1, x2, reads);
      const { width, sure } = extents ? widthFromExtents(extents) : { width: 36 as const, sure: false };
      if (this.trace) this.trace(`row extents ${extents?.map((e) => e?.toFixed(1)).join(',') ?? 'pitch unknown'}: ${width}${sure ? '' : ' unsure'}`);
      widthUnsure = !sure;
      measured36 = sure && width === 36;
      if (width === 44 || nearestLength(reads) === 30) {
        const longer = await this.readLonger(img, kept, x1, x2, reads, width);
        if (longer) {
          remember(longer.reads, kept, longer.to);
          reads = longer.reads;
        }
      }
    }
    if (reads.length < 2) return undefined;
    let best: MrzReading | undefined;
    const sets = zoneRowSets(reads, nearestLength(reads) === 30);
    const parse = (set: RowRead[]) => this.parseSet(img, source, set, td1Tail && set.length === 3);
    // The first two sets are weighed against each other, so both are read: at once, so that one
    // set's second look fills the worker the other's leaves idle (the crops they share are read
    // once, see LineReadCache). A later set is read only when they failed. A block of a TD1's
    // width is the exception: its second set, the last two rows read as a 36-character zone,
    // made no reading on any of 60 generated TD1 cards, yet its rows, read at 30 against the 36
    // it expects, always took a second look and a tight pass; it is read only when the three
    // rows fail.
    const firstTwo = nearestLength(reads) === 30 ? await firstUnlessValid(sets.slice(0, 2), parse) : await Promise.all(sets.slice(0, 2).map(parse));
    for (const reading of firstTwo) if (reading && (!best || mrzScore(reading) > mrzScore(best))) best = reading;
    for (const set of sets.slice(2)) {
      if (best?.parsed.result.check_digits_valid) break;
      const reading = await parse(set);
      if (reading && (!best || mrzScore(reading) > mrzScore(best))) best = reading;
    }
    // A two-row zone read 36 wide whose composite check alone fails may be a 44-character
    // one whose rows the detector cut before their padding (names row included): a TD3's
    // document number, birth and expiry date and their digits sit where a TD2's do, its
    // composite digit does not. Read on to 44 at the pitch the rows were read at (over the
    // span they were cut from, which may already be longer than the block) and keep that read
    // when its checks do better. Not when both rows were seen to end at 36 (see rowExtents): then
    // the composite digit was misread, and what lies past the card's edge, read as 8 more
    // characters and repaired, passed a TD3's two last checks as readily (a TD2 card so became a
    // passport, reported valid).
    const cut = best;
    const compositeOnly = cut?.parsed.checks.every((c) => c.valid || c.name === 'comp') ?? false;
    if (cut && !measured36 && compositeOnly && !cut.parsed.result.check_digits_valid && cut.quads.length === 2 && cut.parsed.result.raw_mrz[0]!.length === 36) {
      const pair = reads.filter((r) => cut.quads.includes(r.quad));
      const rows = pair.map((r) => rowOf.get(r)!);
      const longer = pair.length === 2 ? await this.readLonger(img, rows, x1, endOf.get(pair[0]!) ?? x2, pair, 44) : undefined;
      const wide = longer ? await this.parseSet(img, source, longer.reads, false, 44) : undefined;
      if (wide && mrzScore(wide) > mrzScore(cut)) best = wide;
    }
    return best && widthUnsure && best.parsed.result.raw_mrz.length === 2 ? withWarning(best, 'format_uncertain') : best;
  }

  /**
   * `td1` says the set's rows were found as a TD1's (a row read one pitch from two that open
   * like a TD1's second row), whatever width the crops measure; `width` forces a two-row length.
   */
  private async parseSet(img: RgbImage, source: SourceView, set: RowRead[], td1 = false, width?: 36 | 44): Promise<MrzReading | undefined> {
    const length = set.length === 3 ? 30 : (width ?? (nearestLength(set) === 44 ? 44 : 36));
    if (set.length === 3 && !td1 && nearestLength(set) !== 30) return undefined;
    let timed = set.map((r) => alignLineTimed(r.matrix, this.classIdx, r.read, length));
    // A TD1 row whose read lost its first character, held to the left edge its siblings draw (mrz-row-start.ts).
    const held = heldToLeftEdge(set, timed);
    if (held) {
      set = held;
      timed = set.map((r) => alignLineTimed(r.matrix, this.classIdx, r.read, length));
    }
    let slots: SlotDist[][] = timed.map((t) => fuse([t.slots]));
    const timedRows = set.map((r, i) => ({ read: r.read, cropWidth: r.cropWidth, first: timed[i]!.first, pitch: timed[i]!.pitch }));
    const windowed = rowsLostInStretches(timedRows, length);
    if (this.trace) this.trace(`blank cells ${timedRows.map((_, i) => rowLostCells(timedRows, windowed.reference, i, length).toFixed(1)).join(',')}`);
    const again = [
      ...new Set([
        ...rowsToReadAgain(
          set.map((r) => r.read.text.length),
          length,
          slots,
        ),
        ...windowed.lost,
      ]),
    ].sort((a, b) => a - b);
    if (again.length > 0) {
      const look = new MrzSecondLook((quads, pass) => this.readQuads(img, source, quads, pass), this.classIdx, this.trace);
      const cuts = look.cuts(set, timed, again, slots, length, windowed);
      const first = slots;
      const line = namesLineInDoubt(set.length, length, first);
      const touched = line === undefined ? 'every' : touchedPositions(cuts, line);
      // The names row's tight read, when it can still change the names: started first, beside
      // the other passes, unless the first read's names row is sure enough that the fused one
      // most likely leaves it no chance; then it waits for the fused row to tell (measured on 200
      // generated documents: of 103 reads not ruled out before, 45 had a first row that sure,
      // and 38 of those fused past reach). Not beside windows: a whole-row read of a zone whose
      // rows lose text loses it too.
      const possible = windowed.lost.length === 0 && line !== undefined && surerNamesPossible(first[line]!, touched);
      const early = possible && rowSureness(first[line]!) <= NAMES_SURE_ENOUGH_TO_WAIT;
      let tightNames = early ? look.namesTight(set, length, first) : undefined;
      slots = await look.readAgain(set, timed, cuts, length, windowed);
      if (possible && !early && surerNamesPossible(slots[line]!)) tightNames = look.namesTight(set, length, first);
      slots = withSurerNames(pickFormat(set.length, length, slots), slots, await tightNames);
    }
    const fused = this.finish(set, await this.withGlyphs(set, slots, length), length, slots);
    if (fused?.parsed.result.check_digits_valid) return fused;
    const tight = await this.readQuads(
      img,
      source,
      set.map((r) => r.quad),
      TIGHT_PASS,
    );
    // Read alone, without the other passes to average out its mistakes, it is trusted only
    // when every row decoded to exactly the layout's length (no position left for the
    // alignment to guess): a shorter read, aligned and then "repaired" into holding
    // checks, gave a visa a wrong document number that passed them.
    if (!tight.every((r) => r.read.text.length === length)) return fused;
    const read = tight.map((r) => fuse([this.align(r, length)]));
    const alone = this.finish(set, await this.withGlyphs(tight, read, length), length, read);
    return alone?.parsed.result.check_digits_valid && (!fused || mrzScore(alone) > mrzScore(fused)) ? alone : fused;
  }

  /** The zone's pixel stages (mrz-pixel-evidence.ts); a method, so that the glyph benches can wrap it. */
  private async withGlyphs(set: RowRead[], read: SlotDist[][], length: number): Promise<SlotDist[][]> {
    return withPixelEvidence(this.glyphs, this.classIdx, set, read, length, this.trace);
  }

  /**
   * Repairs and parses a zone's per-position distributions; undefined when they make no plausible
   * MRZ. `recognised` are the distributions before glyph evidence (see mrzConfidence).
   */
  private finish(set: RowRead[], slots: SlotDist[][], length: number, recognised: SlotDist[][]): MrzReading | undefined {
    if (this.trace) this.trace(`fused ${slots.map(distsToText).join(' | ')}`);
    const format = pickFormat(set.length, length, slots);
    const repaired = repairMrz(format, slots);
    const parsed = parseMrz(repaired.lines);
    if (!parsed || !plausible(parsed)) return undefined;
    const confidence = set.reduce((s, r) => s + r.read.confidence, 0) / set.length;
    const result: MrzResult = { ...parsed.result, ...mrzConfidence(format, slots, repaired.lines, parsed.checks, recognised) };
    return { parsed: { ...parsed, result }, confidence, quads: set.map((r) => r.quad), lineConfidences: set.map((r) => r.read.confidence) };
  }
}

/** The horizontal span a zone's rows are read over: the block's, a little wider. */
function blockSpan(group: Row[]): { x1: number; x2: number } {
  const h = Math.max(...group.map((r) => r.height));
  return { x1: Math.min(...group.map((r) => r.x1)) - 0.15 * h, x2: Math.max(...group.map((r) => r.x2)) + 0.15 * h };
}

/** The readings of `sets` one after the other, stopping after one whose checks all hold. */
async function firstUnlessValid<T>(sets: T[], parse: (set: T) => Promise<MrzReading | undefined>): Promise<(MrzReading | undefined)[]> {
  const out: (MrzReading | undefined)[] = [];
  for (const set of sets) {
    const reading = await parse(set);
    out.push(reading);
    if (reading?.parsed.result.check_digits_valid) break;
  }
  return out;
}

/**
 * The MRZ line length (30, 36 or 44) closest to the rows' median length. A row's
 * length is measured from its geometry when it can be (the crop's timesteps over the
 * pitch of adjacent decoded characters): greedy CTC merges runs of fillers, so a
 * 44-character row with long padding decodes to 36 or fewer characters, and its
 * length must not turn a passport into a TD2 card.
 */
function nearestLength(rows: RowRead[]): 30 | 36 | 44 {
  const lens = rows.map((r) => estimateCells(r.matrix, r.read) ?? r.read.text.length).sort((a, b) => a - b);
  const median = lens[Math.floor(lens.length / 2)]!;
  return ([30, 36, 44] as const).reduce((a, b) => (Math.abs(b - median) < Math.abs(a - median) ? b : a));
}

/** The reading with one more warning. */
function withWarning(r: MrzReading, warning: string): MrzReading {
  const result = { ...r.parsed.result, warnings: [...(r.parsed.result.warnings ?? []), warning] };
  return { ...r, parsed: { ...r.parsed, result } };
}
