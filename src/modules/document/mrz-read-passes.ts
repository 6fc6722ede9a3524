import type { Quad } from './geometry.js';
import type { CtcMatrix } from './ctc-decode.js';
import type { LineImage } from './line-crop.js';
import type { LineRead } from './mrz-slots.js';

/** One row of a zone as read: its page quad, the recogniser's output and the crop it read. */
export interface RowRead {
  quad: Quad;
  read: LineRead;
  matrix: CtcMatrix;
  cropWidth: number;
  stretch: number;
  line: LineImage;
}

/** One way of cutting and reading a zone's rows. */
export interface ReadPass {
  stretch: number;
  fromSource: boolean;
  /** How much taller than the detected row the crop is cut (MRZ_ROW_GROWTH unless said). */
  growth?: number;
}

/** Reads rows given as page quads in one pass (the reader's cut-and-read, cached per request). */
export type ReadRows = (quads: Quad[], pass: ReadPass) => Promise<RowRead[]>;

/**
 * How a zone's rows are read. The first pass decides; the others are read and
 * averaged in only when the first leaves a check digit failing, a row of the
 * wrong length or an uncertain name character (names have no check digit), and only
 * on the rows concerned (see rowsToReadAgain), and of those only the characters in
 * doubt with their neighbours where they can be told (mrz-reread.ts). Each
 * pass blurs small glyphs differently, so their average corrects many single
 * misreads. Measured on the shared MRZ set (raw character errors before repair,
 * rows grown as below): page at 1.15 alone 37, at 1.0 alone 49, these three fused 26.
 */
export const FIRST_PASS: ReadPass = { stretch: 1.15, fromSource: false };
export const MORE_PASSES: ReadPass[] = [
  { stretch: 1.15, fromSource: true },
  { stretch: 1, fromSource: true },
];

/** Crops are cut this many times the detected row height (see growAcross). */
export const MRZ_ROW_GROWTH = 1.35;

/**
 * The last read of a zone whose fused reads still fail a check: rows cut no taller than
 * their boxes, kept when its rows decode to the layout's length and its checks hold.
 * Grown crops take in some of the rows above and below, which the recogniser
 * mostly ignores; on small, turned or blurred print it does not (a 17-degree phone
 * screenshot's TD3, 14-pixel characters at a 20-pixel row pitch, read XEC as X50 in every
 * grown pass and right in this one).
 */
export const TIGHT_PASS: ReadPass = { stretch: 1.15, fromSource: false, growth: 1 };
