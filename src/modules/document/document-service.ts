import type { VigilConfig } from '../../config/schema.js';
import { ServiceUnavailableError, UnprocessableError } from '../../core/errors.js';
import { sharpFromRgb, type RgbImage } from '../../core/image-decode.js';
import type { AnalyzedFace, FaceService } from '../face/face-service.js';
import { findOutline, rectify, type Rectified } from './document-outline.js';
import { quadBbox, quadCenter, quadSize, tiles, zoneWindow, type Point, type Quad, type Rect } from './geometry.js';
import type { MrzResult } from './mrz-parser.js';
import { MrzReader, type MrzReading, type SourceView } from './mrz-reader.js';
import { mrzScore } from './mrz-reading-score.js';
import { DET_MAX_SIDE, insideBbox, knownToLine, OcrEngine, workingCopy, type OcrPage, type OcrSessions, type UprightPage } from './ocr-engine.js';
import type { TextBox } from './text-detector.js';
import type { GlyphTemplates } from './ocrb-templates.js';
import type { CV } from './opencv.js';
import type { DocumentVerifyResult, OcrResult } from './schema.js';
import { unrotatePoint } from './text-orientation.js';
import { neutralInk } from './line-crop.js';

/** A page made ready for reading, and the way back to the upload's pixel coordinates. */
interface Prepared {
  page: UprightPage;
  toUpload: (p: Point) => Point;
  outlineFound: boolean;
  /** The upload and the way to it, for the MRZ reader's second look at the pixels. */
  source: SourceView;
}

/** An upload's working copy (see workingCopy) and its document outline, flattened, when one was found. */
interface Working {
  upload: RgbImage;
  image: RgbImage;
  scale: number;
  flat?: Rectified;
}

export interface ScanOutcome {
  detected: boolean;
  ocr: OcrResult;
  mrz: MrzResult | null;
  has_face: boolean;
}

/** Detector input side of the first /mrz pass (the full pass uses DET_MAX_SIDE, 960). */
const MRZ_FAST_DET_SIDE = 736;
/**
 * Side of the tiles the last /mrz pass detects on, in working-copy pixels: the detector's
 * own input side, so a tile is detected at its full resolution where the whole page can
 * be shrunk 2.5 times (a 2400-pixel photo). That loses the rows of a document filling
 * little of the frame: a phone screenshot with interface around it, a card on a large
 * desk. Tiles shrunk by a third (1440) still lost the second row of a 17-degree
 * screenshot's 14-pixel MRZ.
 */
const TILE_SIDE = DET_MAX_SIDE;
/**
 * The last resort's copies of the working image, tried in turn: its levels stretched from the
 * 1st percentile to `upper`, on the colour image and then on its brightest channel (`ink`).
 * The 99th lifts a photo dim all over. But where a brighter share of the frame holds the top
 * of the range (an ultraviolet capture's glowing patterns on a dark card, the lit half beside
 * a hard shadow across the zone, white papers on the table), stretching to the 99th leaves the
 * dark part's print as faint as it was, and the detector finds no rows there. Stretching to
 * the 60th clips that brighter share to white and gives the darker part's print the range.
 * The brightest channel keeps only what is dark in all three, as the zone's black print is
 * (ICAO 9303: it must absorb in the near infrared too), and turns coloured ground and patterns
 * light: an ultraviolet capture's violet card crossed by glowing yellow lines, where the colour
 * copies still showed the detector no rows. The MRZ's crops are greyed the same way (neutralInk).
 * Its stretch to the 99th percentile read none that its stretch to the 60th did not, so only
 * that one is made (each copy costs a 422 about half a second); a grey image's brightest channel
 * is the image itself, so a grey image gets none.
 */
const LEVELLED_COPIES = [
  { ink: false, upper: 99 },
  { ink: false, upper: 60 },
  { ink: true, upper: 60 },
] as const;

/** Mean spread between a pixel's channels below which an image is grey (JPEG's chroma noise is 1-2 levels). */
const GREY_SPREAD = 4;

/** Whether an image is grey: the mean spread between its channels, on every 7th pixel, is small. */
function nearlyGrey(img: RgbImage): boolean {
  let spread = 0;
  let n = 0;
  for (let i = 0; i + 2 < img.data.length; i += 21) {
    const r = img.data[i]!;
    const g = img.data[i + 1]!;
    const b = img.data[i + 2]!;
    spread += Math.max(r, g, b) - Math.min(r, g, b);
    n++;
  }
  return spread < GREY_SPREAD * n;
}

const r2 = (v: number) => Math.round(v * 100) / 100;
const r4 = (v: number) => Math.round(v * 10000) / 10000;

/**
 * The document module's work: OCR, MRZ reading, full scans (outline, rectify, OCR,
 * MRZ, portrait) and document-portrait vs selfie verification. Every step is an
 * onnxruntime or libvips call (async) or a short OpenCV.js call on one line crop
 * or a 480-pixel thumbnail, so the event loop is never held for long.
 */
export class DocumentService {
  private readonly engine: OcrEngine;
  private readonly mrzReader: MrzReader;

  constructor(
    private readonly cv: CV,
    sessions: OcrSessions,
    dictionary: string[],
    private readonly config: VigilConfig['document'],
    private readonly faces: () => FaceService | undefined,
    /** Templates for the MRZ reader's glyph classifier, OCR-B first (none: no template font is installed). */
    glyphs: GlyphTemplates[] = [],
  ) {
    this.engine = new OcrEngine(cv, sessions, dictionary);
    this.mrzReader = new MrzReader(this.engine, undefined, glyphs);
  }

  /**
   * The upload's working copy and, when asked, the document's outline flattened: made
   * once per request and shared by its passes (the fast and full detector passes, the
   * whole-photo retry and the tiles), which used to make each again.
   */
  private async working(img: RgbImage, withOutline: boolean): Promise<Working> {
    const { image, scale } = await workingCopy(img);
    const outline = withOutline ? await findOutline(this.cv, image) : undefined;
    return { upload: img, image, scale, flat: outline ? rectify(this.cv, image, outline.quad) : undefined };
  }

  /** Upright page of the working copy (or of its flattened document), with the inverse mapping. */
  private async prepare(w: Working, rectifyOutline: boolean, detSide = DET_MAX_SIDE): Promise<Prepared> {
    const flat = rectifyOutline ? w.flat : undefined;
    const pageImg = flat?.image ?? w.image;
    const toWorking = flat?.toSource ?? ((p: Point): Point => p);
    const page = await this.engine.upright(pageImg, detSide);
    const toUpload = (p: Point): Point => {
      const q = toWorking(unrotatePoint(p, page.turns, pageImg.width, pageImg.height));
      return { x: q.x / w.scale, y: q.y / w.scale };
    };
    return { page, toUpload, outlineFound: flat !== undefined, source: { image: w.upload, toSource: toUpload } };
  }

  private bboxInUpload(quad: Quad, prep: Prepared, img: RgbImage): [number, number, number, number] {
    const [x1, y1, x2, y2] = quadBbox(quad.map(prep.toUpload) as Quad);
    const cx = (v: number) => r2(Math.min(Math.max(v, 0), img.width));
    const cy = (v: number) => r2(Math.min(Math.max(v, 0), img.height));
    return [cx(x1), cy(y1), cx(x2), cy(y2)];
  }

  private toResult(page: OcrPage, prep: Prepared, img: RgbImage): OcrResult {
    return {
      full_text: page.full_text,
      lines: page.lines.map((l) => ({ text: l.text, bbox: this.bboxInUpload(l.quad, prep, img), confidence: r4(l.confidence) })),
      confidence: r4(page.confidence),
    };
  }

  async ocr(img: RgbImage): Promise<OcrResult> {
    if (!this.config.enable_ocr) throw featureDisabled('OCR', 'enable_ocr');
    const prep = await this.prepare(await this.working(img, false), false);
    return this.toResult(await this.engine.read(prep.page), prep, img);
  }

  /** The MRZ, or 422 NO_MRZ. */
  async mrz(img: RgbImage): Promise<MrzResult> {
    if (!this.config.enable_mrz) throw featureDisabled('MRZ reading', 'enable_mrz');
    // A first pass with a smaller detector input finds most zones (MRZ rows are the
    // page's largest text) at about 60% of the detector's cost; the full pass follows if not.
    const w = await this.working(img, true);
    const quick = await this.prepare(w, true, MRZ_FAST_DET_SIDE);
    const fast = await this.mrzReader.read(quick.page, quick.source);
    let reading = fast;
    if (!fast?.parsed.result.check_digits_valid) {
      const page = await this.prepare(w, true);
      // The full pass is for zones the fast one missed or cut short. When its most likely
      // zone holds the rows already read, reading them again (three recogniser passes a row)
      // gives the same characters: that was most of the time a misread document took.
      const same = fast !== undefined && page.page.turns === quick.page.turns && sameRows(this.mrzReader.likelyZone(page.page), fast.quads);
      const full = same ? undefined : (await this.readMrz(w, page))?.reading;
      if (full && (!fast || mrzScore(full) >= mrzScore(fast))) reading = full;
    }
    if (!reading?.parsed.result.check_digits_valid && quick.page.turns % 2 === 1) {
      // A sideways page's boxes were detected before it was turned, and the detector finds
      // vertical text less surely than level text (the second row of a sideways visa, next to
      // the card's edge, went unseen). The turned page is detected again, only when the zone
      // was not read: level detection is not better everywhere (it cut a sideways TD1's
      // rows before their fillers where the sideways boxes held them).
      const level: UprightPage = { ...quick.page, boxes: await this.engine.detect(quick.page.image) };
      const again = await this.mrzReader.read(level, quick.source);
      if (again && (!reading || mrzScore(again) > mrzScore(reading))) reading = again;
    }
    reading = await this.orTiles(w, reading);
    reading ??= await this.readLevelled(w);
    if (!reading) throw new UnprocessableError('NO_MRZ', 'no machine-readable zone was found in "image"', { field: 'image' });
    return reading.parsed.result;
  }

  /**
   * `reading`, or the zone read tile by tile (readTiles) where there is none or its checks fail
   * and the tiles read it better. Rows found and cut at another scale read differently, where
   * reading the page's same rows again gives the same characters. Before, only a page with no
   * reading was tiled, so that a first read garbled past plausibility was rescued more often than
   * one that came close (docs/documents.md, "Tiles").
   */
  private async orTiles(w: Working, reading: MrzReading | undefined): Promise<MrzReading | undefined> {
    if (reading?.parsed.result.check_digits_valid) return reading;
    const tiled = await this.readTiles(w);
    return tiled && (!reading || mrzScore(tiled) > mrzScore(reading)) ? tiled : reading;
  }

  /**
   * The MRZ looked for tile by tile, each detected at nearly its own resolution, when the whole
   * page, detected at 960 pixels, showed no zone or none that passed its checks; stops at the first
   * tile whose zone passes its check digits. Pages the detector already saw whole at
   * full resolution have no tiles to try. A zone that runs into a tile's inner edge was cut
   * by the tiling, not by the document (an MRV-A visa cut at 36 characters passes every check
   * of an MRV-B): it is read again from a window around it (see zoneWindow), and that reading,
   * which holds the zone whole, is kept unless its checks do worse.
   */
  private async readTiles(w: Working): Promise<MrzReading | undefined> {
    const { image } = w;
    if (Math.max(image.width, image.height) <= TILE_SIDE) return undefined;
    let best: MrzReading | undefined;
    for (const t of tiles(image.width, image.height, TILE_SIDE)) {
      let tiled = await this.readRect(w, t);
      const window = tiled && zoneWindow(tiled.zone, t, image.width, image.height, TILE_SIDE);
      if (tiled && window) {
        const whole = await this.readRect(w, window);
        if (whole && checkShare(whole.reading) >= checkShare(tiled.reading)) tiled = whole;
      }
      const reading = tiled?.reading;
      if (reading && (!best || mrzScore(reading) > mrzScore(best))) best = reading;
      if (best?.parsed.result.check_digits_valid) break;
    }
    return best;
  }

  /** The MRZ of one rect of the working copy, detected on its own, and where its zone lies in the working copy. */
  private async readRect(w: Working, t: Rect): Promise<{ reading: MrzReading; zone: [number, number, number, number] } | undefined> {
    const { image, scale, upload } = w;
    const { data, info } = await sharpFromRgb(image).extract(t).raw().toBuffer({ resolveWithObject: true });
    const page = await this.engine.upright({ data, width: info.width, height: info.height });
    const toWorking = (p: Point): Point => {
      const q = unrotatePoint(p, page.turns, info.width, info.height);
      return { x: q.x + t.left, y: q.y + t.top };
    };
    const toUpload = (p: Point): Point => {
      const q = toWorking(p);
      return { x: q.x / scale, y: q.y / scale };
    };
    // One block per rect, the most promising: a zone the page pass missed is the rect's
    // longest rows, and a page of interface text must not cost every tile four reads.
    const reading = await this.mrzReader.read(page, { image: upload, toSource: toUpload }, 1);
    if (!reading) return undefined;
    const corners = reading.quads.flatMap((q) => q.map(toWorking));
    const xs = corners.map((p) => p.x);
    const ys = corners.map((p) => p.y);
    return { reading, zone: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] };
  }

  /**
   * The MRZ looked for once more on copies of the working image with its levels stretched
   * (see LEVELLED_COPIES): the last resort when no pass found a zone. A photo taken in
   * a dim room holds its print and paper within a fifth of the range, where the detector's
   * fixed normalisation finds rows faintly or not at all. Only a request that would answer 422
   * pays for it.
   */
  private async readLevelled(w: Working): Promise<MrzReading | undefined> {
    for (const { ink, upper } of LEVELLED_COPIES) {
      if (ink && nearlyGrey(w.image)) continue;
      const base = ink ? { ...w.image, data: Buffer.from(w.image.data) } : w.image;
      if (ink) neutralInk(base.data);
      const { data, info } = await sharpFromRgb(base).normalise({ lower: 1, upper }).raw().toBuffer({ resolveWithObject: true });
      const levelled = await this.working({ data, width: info.width, height: info.height }, true);
      const reading = (await this.readMrz(levelled, await this.prepare(levelled, true)))?.reading;
      if (reading) return reading;
    }
    return undefined;
  }

  /**
   * The MRZ on the prepared page, else on the whole photo when an outline was
   * rectified: a card photographed front above back outlines the front, and the
   * zone is on the back.
   */
  private async readMrz(w: Working, prep: Prepared): Promise<{ reading: MrzReading; prep: Prepared } | undefined> {
    const reading = await this.mrzReader.read(prep.page, prep.source);
    if (reading) return { reading, prep };
    if (!prep.outlineFound) return undefined;
    const whole = await this.prepare(w, false);
    const again = await this.mrzReader.read(whole.page, whole.source);
    return again ? { reading: again, prep: whole } : undefined;
  }

  async scan(img: RgbImage): Promise<ScanOutcome> {
    const w = await this.working(img, true);
    const prep = await this.prepare(w, true);
    const { enable_mrz, enable_ocr, enable_face_extraction } = this.config;
    // The likely zone's boxes wait for the MRZ reading (its rows come back read over the
    // MRZ alphabet and repaired); the page's other boxes and the portrait are read meanwhile,
    // so the inference pool has independent runs for every core.
    const zone = enable_mrz ? this.mrzReader.likelyZone(prep.page) : [];
    const inZone = (b: TextBox) => zone.some((q) => insideBbox(q, quadCenter(b.quad)));
    // Issued in this order: the portrait's one or two runs and the zone's rows first, so
    // they do not wait behind the page's many lines.
    const [face, found, early] = await Promise.all([
      enable_face_extraction ? this.documentFace(prep.page.image, false) : undefined,
      enable_mrz ? this.readMrz(w, prep) : undefined,
      enable_ocr
        ? this.engine.readBoxes(
            prep.page,
            prep.page.boxes.filter((b) => !inZone(b)),
          )
        : [],
    ]);
    // A zone too small for the page's detector pass, or read with a failing check, is looked for
    // tile by tile, as /mrz does.
    const reading = enable_mrz ? await this.orTiles(w, found?.reading) : undefined;
    const mrz = reading?.parsed.result ?? null;
    // OCR takes the MRZ rows as read, when they were read on the page the OCR reads.
    const known = reading && reading === found?.reading && found.prep === prep ? reading.quads.map((quad, i) => ({ quad, text: mrz!.raw_mrz[i]!, confidence: reading.lineConfidences[i]! })) : [];
    let ocr: OcrResult = { full_text: '', lines: [], confidence: 0 };
    if (enable_ocr) {
      const rest = prep.page.boxes.filter((b) => inZone(b) && !known.some((k) => insideBbox(k.quad, quadCenter(b.quad))));
      const late = await this.engine.readBoxes(prep.page, rest);
      ocr = this.toResult(this.engine.assemble([...early, ...late, ...known.map(knownToLine)]), prep, img);
    }
    return { detected: prep.outlineFound || mrz !== null, ocr, mrz, has_face: face !== undefined };
  }

  private faceService(): FaceService {
    const fs = this.faces();
    if (!fs) throw new ServiceUnavailableError('FACE_UNAVAILABLE', 'the face module is not running; document portraits cannot be analysed');
    return fs;
  }

  /**
   * The document's portrait: the largest face on the page (small images enlarged by
   * the face service), else on the left half, where ICAO layouts put the portrait,
   * enlarged twice so a small portrait reaches the detector's working size.
   */
  private async documentFace(img: RgbImage, embed: boolean): Promise<AnalyzedFace | undefined> {
    const fs = this.faceService();
    // The spec's document faces carry no demographics, and a scan only asks whether there is one.
    const opts = { embed, quality: false, liveness: false, demographics: false, maxFaces: 1, minFaceUpscale: true };
    const [face] = await fs.analyze(img, opts);
    if (face) return face;
    const half = Math.max(1, Math.round(img.width / 2));
    const { data, info } = await sharpFromRgb(img)
      .extract({ left: 0, top: 0, width: half, height: img.height })
      .resize(half * 2, img.height * 2, { kernel: 'lanczos3' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const [zoomed] = await fs.analyze({ data, width: info.width, height: info.height }, opts);
    if (!zoomed) return undefined;
    const d = zoomed.result.detection;
    const back = (v: number) => r2(v / 2);
    return {
      embedding: zoomed.embedding,
      result: {
        ...zoomed.result,
        detection: { ...d, bbox: d.bbox.map(back) as typeof d.bbox, face_size: back(d.face_size), landmarks: d.landmarks.map(([x, y]) => [back(x), back(y)]) },
      },
    };
  }

  async verify(document: RgbImage, selfie: RgbImage, threshold: number): Promise<DocumentVerifyResult> {
    if (!this.config.enable_face_extraction) throw featureDisabled('document portrait extraction', 'enable_face_extraction');
    const fs = this.faceService();
    const docFace = await this.documentFace(document, true);
    if (!docFace?.embedding) throw new UnprocessableError('NO_FACE', 'no face found in "document"', { field: 'document' });
    const selfieFace = await fs.largest(selfie, 'selfie', { quality: false, liveness: false, demographics: false });
    const similarity = fs.similarity(docFace.embedding, selfieFace.embedding!);
    // The spec: in document verify, quality, demographics and liveness are null.
    const plain = (f: AnalyzedFace) => ({ ...f.result, quality: null, demographics: null, liveness: null });
    return { is_match: similarity >= threshold, similarity, face1: plain(docFace), face2: plain(selfieFace) };
  }
}

/** The share of a reading's check digits that hold. */
function checkShare(r: MrzReading): number {
  return r.parsed.checks.filter((c) => c.valid).length / Math.max(1, r.parsed.checks.length);
}

/** Whether every row read lies in one of the zone's rows (centre inside, length within 10%). */
function sameRows(zone: Quad[], rows: Quad[]): boolean {
  return rows.every((r) => zone.some((z) => insideBbox(z, quadCenter(r)) && Math.abs(quadSize(z).width - quadSize(r).width) <= 0.1 * quadSize(r).width));
}

function featureDisabled(what: string, key: string): ServiceUnavailableError {
  return new ServiceUnavailableError('FEATURE_DISABLED', `${what} is disabled in the configuration (document.${key}: false)`, { setting: `document.${key}` });
}
