import type { WorkerModel } from '../../runtime/inference-worker.js';
import { sharpFromRgb, type RgbImage } from '../../core/image-decode.js';
import { BLANK, ctcGreedy, meanProb, type CtcMatrix } from './ctc-decode.js';
import { quadBbox, quadCenter, quadSize, type Quad } from './geometry.js';
import { lineText } from './line-text.js';
import { cropQuad, cropWidth, matFromRgb, type CropOptions, type LineImage } from './line-crop.js';
import type { CV } from './opencv.js';
import { TextDetector, type TextBox } from './text-detector.js';
import { clsCropOptions, longestBoxes, rotateQuad, textIsVertical, upsideDownVote, type QuarterTurns } from './text-orientation.js';
import { mrzClassIndices } from './mrz-slots.js';
import { REC_HEIGHT, TextRecognizer } from './text-recognizer.js';

export interface OcrSessions {
  det: WorkerModel;
  /** Run through runReduced, so its 6,625-class outputs stay in the inference worker. */
  rec: WorkerModel;
  /** Optional 0/180 classifier; without it upside-down pages are read as they come. */
  cls?: WorkerModel;
}

/** A page made upright, with the detected text boxes in its coordinates. */
export interface UprightPage {
  image: RgbImage;
  boxes: TextBox[];
  /** Clockwise quarter turns applied to the analysed image. */
  turns: QuarterTurns;
}

export interface OcrLine {
  text: string;
  /** [x1, y1, x2, y2] in the upright page's coordinates. */
  bbox: [number, number, number, number];
  confidence: number;
  quad: Quad;
}

export interface OcrPage {
  full_text: string;
  lines: OcrLine[];
  confidence: number;
}

/** Detector input limits: full pages at 960 like PaddleOCR; small images are enlarged so 6-pixel text is found. */
export const DET_MAX_SIDE = 960;
export const DET_MIN_LONG_SIDE = 800;

/**
 * PP-OCRv4 text reading: detection, page orientation (quarter turns from the
 * boxes' shape, upside-down from the direction classifier), line crops and
 * recognition, and lines in reading order.
 */
export class OcrEngine {
  private readonly detector: TextDetector;
  private readonly recognizer: TextRecognizer;

  constructor(
    private readonly cv: CV,
    private readonly sessions: OcrSessions,
    /** Class index -> character (index 0 is the CTC blank). */
    readonly dictionary: string[],
  ) {
    this.detector = new TextDetector(sessions.det, cv);
    this.recognizer = new TextRecognizer(sessions.rec, [BLANK, ...mrzClassIndices(dictionary)]);
  }

  detect(img: RgbImage, maxSide = DET_MAX_SIDE): Promise<TextBox[]> {
    return this.detector.detect(img, { maxSide, minLongSide: DET_MIN_LONG_SIDE });
  }

  /** Detects text and turns the page so its text reads left to right, top to bottom. */
  async upright(img: RgbImage, maxSide = DET_MAX_SIDE): Promise<UprightPage> {
    const boxes = await this.detect(img, maxSide);
    let turns: QuarterTurns = textIsVertical(boxes) ? 1 : 0;
    let image = turns ? await rotateImage(img, 1) : img;
    let rotated = turns ? boxes.map((b) => ({ ...b, quad: rotateQuad(b.quad, 1, img.width, img.height) })) : boxes;
    if (this.sessions.cls && rotated.length > 0) {
      const sample = longestBoxes(rotated, 5);
      const crops = this.crop(
        image,
        sample.map((b) => b.quad),
        clsCropOptions,
      );
      if ((await upsideDownVote(this.sessions.cls, crops)) > 0.6) {
        const w = image.width;
        const h = image.height;
        image = await rotateImage(image, 2);
        rotated = rotated.map((b) => ({ ...b, quad: rotateQuad(b.quad, 2, w, h) }));
        turns = ((turns + 2) % 4) as QuarterTurns;
      }
    }
    return { image, boxes: rotated, turns };
  }

  /** Cuts each quad with its own options. */
  crop(img: RgbImage, quads: Quad[], optsFor: (q: Quad) => CropOptions): LineImage[] {
    if (quads.length === 0) return [];
    const src = matFromRgb(this.cv, img);
    try {
      return quads.map((q) => cropQuad(this.cv, src, q, optsFor(q)));
    } finally {
      src.delete();
    }
  }

  /**
   * Cuts each quad and reads it, the widest first (the pool's workers then finish
   * together, no long line left for last). Each line's run is posted as soon as it is
   * cut, so the workers read while the rest are cut.
   */
  async readQuads(img: RgbImage, quads: Quad[], opts: CropOptions): Promise<LineRead[]> {
    if (quads.length === 0) return [];
    const widths = quads.map((q) => cropWidth(q, opts));
    const order = quads.map((_, i) => i).sort((a, b) => widths[b]! - widths[a]!);
    const reads = new Array<Promise<LineRead>>(quads.length);
    const src = matFromRgb(this.cv, img);
    try {
      for (const i of order) {
        const line = cropQuad(this.cv, src, quads[i]!, opts);
        reads[i] = this.recognizer.recognize(line).then((matrix) => ({ matrix, width: line.width, line }));
      }
    } finally {
      src.delete();
    }
    return Promise.all(reads);
  }

  /**
   * Reads every box of an upright page; lines come back in reading order. Lines
   * already read elsewhere (the MRZ rows, read over their own alphabet) are passed
   * in `known`: boxes inside them are not read again.
   */
  async read(page: UprightPage, known: KnownLine[] = []): Promise<OcrPage> {
    const boxes = page.boxes.filter((b) => !known.some((k) => insideBbox(k.quad, quadCenter(b.quad))));
    return this.assemble([...(await this.readBoxes(page, boxes)), ...known.map(knownToLine)]);
  }

  /** Reads some boxes of an upright page (lines that read as nothing are dropped), in no particular order. */
  async readBoxes(page: UprightPage, boxes: TextBox[]): Promise<OcrLine[]> {
    const reads = await this.readQuads(
      page.image,
      boxes.map((b) => b.quad),
      { height: REC_HEIGHT },
    );
    const lines: OcrLine[] = [];
    boxes.forEach((b, i) => {
      const chars = ctcGreedy(reads[i]!.matrix);
      const text = lineText(chars.map((c) => this.dictionary[c.cls] ?? '').join(''));
      if (text) lines.push({ text, bbox: quadBbox(b.quad), confidence: meanProb(chars), quad: b.quad });
    });
    return lines;
  }

  /** A page's lines in reading order, with its text and confidence. */
  assemble(lines: OcrLine[]): OcrPage {
    const ordered = readingOrder(lines);
    return { full_text: joinRows(ordered), lines: ordered, confidence: overallConfidence(ordered) };
  }
}

/** A line's recogniser output and the width it was read at. */
export interface LineRead {
  matrix: CtcMatrix;
  width: number;
  /** The crop as read (the MRZ reader's glyph classifier cuts its cells from it). */
  line: LineImage;
}

export interface KnownLine {
  quad: Quad;
  text: string;
  confidence: number;
}

export function knownToLine(k: KnownLine): OcrLine {
  return { text: k.text, bbox: quadBbox(k.quad), confidence: k.confidence, quad: k.quad };
}

/** Whether a point lies inside a quad's bounding box. */
export function insideBbox(q: Quad, p: { x: number; y: number }): boolean {
  const [x1, y1, x2, y2] = quadBbox(q);
  return p.x >= x1 && p.x <= x2 && p.y >= y1 && p.y <= y2;
}

export function rotateImage(img: RgbImage, turns: QuarterTurns): Promise<RgbImage> {
  return sharpFromRgb(img)
    .rotate(turns * 90)
    .raw()
    .toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => ({ data, width: info.width, height: info.height }));
}

/** Boxes sharing a row (vertical centre within half the smaller height) left to right, rows top to bottom. */
export function readingOrder<T extends { quad: Quad }>(boxes: T[]): T[] {
  const sorted = [...boxes].sort((a, b) => quadCenter(a.quad).y - quadCenter(b.quad).y);
  const rows: T[][] = [];
  for (const b of sorted) {
    const c = quadCenter(b.quad);
    const h = quadSize(b.quad).height;
    const row = rows[rows.length - 1];
    const ref = row?.[0];
    if (row && ref && Math.abs(quadCenter(ref.quad).y - c.y) < Math.min(h, quadSize(ref.quad).height) / 2) row.push(b);
    else rows.push([b]);
  }
  return rows.flatMap((r) => r.sort((a, b) => quadCenter(a.quad).x - quadCenter(b.quad).x));
}

/** Lines on one row joined by a space, rows by a newline. */
function joinRows(lines: OcrLine[]): string {
  let out = '';
  lines.forEach((l, i) => {
    if (i > 0) {
      const prev = lines[i - 1]!;
      const sameRow = Math.abs((prev.bbox[1] + prev.bbox[3]) / 2 - (l.bbox[1] + l.bbox[3]) / 2) < Math.min(prev.bbox[3] - prev.bbox[1], l.bbox[3] - l.bbox[1]) / 2;
      out += sameRow ? ' ' : '\n';
    }
    out += l.text;
  });
  return out;
}

/** Character-weighted mean of line confidences. */
function overallConfidence(lines: OcrLine[]): number {
  const n = lines.reduce((s, l) => s + l.text.length, 0);
  return n === 0 ? 0 : lines.reduce((s, l) => s + l.confidence * l.text.length, 0) / n;
}

/** Longest side a page is analysed at: huge photos are shrunk (not rejected), small scans enlarged. */
export const PAGE_MAX_SIDE = 2400;
export const PAGE_MIN_SIDE = 1200;

/**
 * The copy of an upload the OCR works on, and its scale against the upload. Small
 * images are enlarged with Lanczos first: an MRZ row 7 pixels high, warped to the
 * recogniser's 48 from a smooth enlargement, reads far better than from the raw
 * pixels (on the shared set, a 268-pixel-wide passport's MRZ went from 5 wrong
 * characters to none).
 */
export async function workingCopy(img: RgbImage): Promise<{ image: RgbImage; scale: number }> {
  const long = Math.max(img.width, img.height);
  const target = long > PAGE_MAX_SIDE ? PAGE_MAX_SIDE : long < PAGE_MIN_SIDE ? PAGE_MIN_SIDE : long;
  if (target === long) return { image: img, scale: 1 };
  const scale = target / long;
  const width = Math.max(1, Math.round(img.width * scale));
  const height = Math.max(1, Math.round(img.height * scale));
  const { data, info } = await sharpFromRgb(img).resize(width, height, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer({ resolveWithObject: true });
  return { image: { data, width: info.width, height: info.height }, scale };
}
