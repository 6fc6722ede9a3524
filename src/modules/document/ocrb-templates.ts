import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { MRZ_ALPHABET } from './mrz-format.js';

/**
 * Templates of the 37 MRZ characters in OCR-B, rendered at start-up from the system's
 * font (Debian `fonts-ocr-b`): no trained or stored glyph data. Each template is one
 * character cell on a fixed grid, one MRZ pitch wide and the cap height plus a margin
 * tall, in a few stroke weights (print and scans thicken or thin the strokes).
 */

/** Where Debian and Ubuntu install OCR-B (fonts-ocr-b); the file is looked for, the font is used by family. */
export const OCRB_FONT_FILES = ['/usr/share/fonts/opentype/ocr-b/OCRB.otf', '/usr/local/share/fonts/OCRB.otf'];

/** The grid a cell is compared on: GRID_W columns across one pitch, GRID_H rows. */
export const GRID_W = 16;
export const GRID_H = 24;
/** Grid rows above the cap line (and below the baseline): the margin keeps a glyph's full height in view. */
export const GRID_MARGIN = 3;
/** Grid rows from the cap line to the baseline. */
export const GRID_CAP = GRID_H - 2 * GRID_MARGIN;

/**
 * A font MRZ glyphs are templated in. OCR-B is the MRZ's font (ICAO 9303); the others are
 * common free monospace faces (a Courier clone, Courier New's metric twin, the usual sans
 * monospace) that a zone printed off the standard may be set in, and that the generated corpus
 * draws. A zone in a face none of them resembles fails the stage's per-zone test and is left to
 * the recogniser.
 */
export interface TemplateFont {
  family: string;
  /** Installed font files, one of which must exist: the file is looked for, the font is used by family. */
  files: string[];
  /** Advance in em: a render far from it came out in another font (fontconfig substitutes silently). */
  advanceEm: number;
  /**
   * Whether its bold face is templated too (as more variants of the font): office printers set
   * these faces bold too, and a bold Liberation Mono matched a Courier's templates better than its
   * own regular weight's thickened ones.
   */
  bold?: boolean;
}

export const OCRB_FONT: TemplateFont = { family: 'OCR B', files: OCRB_FONT_FILES, advanceEm: 0.722 };

/** OCR-B first; the others (advance 0.6 em) only where their package is installed. */
export const TEMPLATE_FONTS: TemplateFont[] = [
  OCRB_FONT,
  // Courier's free clone (fonts-freefont-ttf).
  { family: 'FreeMono', files: ['/usr/share/fonts/truetype/freefont/FreeMono.ttf'], advanceEm: 0.6, bold: true },
  // Courier New's metric-compatible face (fonts-liberation).
  {
    family: 'Liberation Mono',
    files: ['/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf', '/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf'],
    advanceEm: 0.6,
    bold: true,
  },
  // Bitstream Vera Sans Mono's successor, the usual sans monospace (fonts-dejavu-core).
  { family: 'DejaVu Sans Mono', files: ['/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf'], advanceEm: 0.602, bold: true },
];

export interface GlyphTemplates {
  /** The font family the templates were rendered in. */
  family: string;
  /**
   * Per character of MRZ_ALPHABET: its variants (stroke weights x blurs, in the same order
   * for every character), each GRID_W x GRID_H, zero-mean and of unit norm.
   */
  byChar: Float32Array[][];
}

/** Font size of the render the templates are cut from. */
const RENDER_SIZE = 96;
/**
 * Stroke weight variants, in render pixels of dilation (negative: erosion). OCR-B's
 * stroke is about 10 of them at this size; printed and scanned MRZs range from
 * thinner to half again as heavy.
 */
const WEIGHTS = [-2, 0, 3, 6];
/** Blurs of the templates on the grid (sigma in grid cells): cells are cut from print blurred by optics, motion and compression. */
const GRID_BLURS = [0.7, 1.4];

/** Whether the OCR-B font file is installed; the reader works without it, on the recogniser alone. */
export function ocrbFontFile(): string | undefined {
  return OCRB_FONT_FILES.find((f) => existsSync(f));
}

/**
 * Renders one font's templates, or undefined when the font is not installed (or the render
 * came out in another font: fontconfig substitutes silently).
 */
export async function renderTemplates(font: TemplateFont): Promise<GlyphTemplates | undefined> {
  if (!font.files.some((f) => existsSync(f))) return undefined;
  try {
    return await render(font);
  } catch {
    // librsvg or fontconfig unable to render: the reader works without templates.
    return undefined;
  }
}

/** The templates of every installed TEMPLATE_FONTS font, OCR-B first where installed. */
export async function renderTemplateFonts(): Promise<GlyphTemplates[]> {
  const out: GlyphTemplates[] = [];
  for (const font of TEMPLATE_FONTS) {
    const t = await renderTemplates(font);
    if (t) out.push(t);
  }
  return out;
}

async function render(font: TemplateFont): Promise<GlyphTemplates | undefined> {
  const faces = [await renderFace(font, false), ...(font.bold ? [await renderFace(font, true)] : [])];
  if (faces.some((f) => !f)) return undefined;
  // The bold face's variants follow the regular's, in the same order for every character.
  return { family: font.family, byChar: [...MRZ_ALPHABET].map((_, i) => faces.flatMap((f) => f![i]!)) };
}

/** One face's variants per character of MRZ_ALPHABET, or undefined when the render came out in another font. */
async function renderFace(font: TemplateFont, bold: boolean): Promise<Float32Array[][] | undefined> {
  const S = RENDER_SIZE;
  const lead = 10;
  const text = 'H'.repeat(lead) + MRZ_ALPHABET;
  const x0 = S / 2;
  const width = Math.ceil(x0 * 2 + text.length * S * 0.8);
  const height = S * 2;
  const baseY = Math.round(S * 1.3);
  const esc = text.replace(/</g, '&lt;');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><text x="${x0}" y="${baseY}" font-family="${font.family}"${bold ? ' font-weight="bold"' : ''} font-size="${S}" fill="#000" xml:space="preserve">${esc}</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).greyscale().raw().toBuffer({ resolveWithObject: true });
  const ink = new Float32Array(info.width * info.height);
  for (let i = 0; i < ink.length; i++) ink[i] = 1 - data[i * info.channels]! / 255;
  const img = { data: ink, width: info.width, height: info.height };
  // The advance from the first and last of the leading H's, the cap band from their ink.
  const runs = inkRuns(img, x0, x0 + (lead - 0.5) * S * font.advanceEm);
  if (runs.length !== lead) return undefined;
  const advance = (runs[lead - 1]! - runs[0]!) / (lead - 1);
  if (!(Math.abs(advance / S - font.advanceEm) < 0.03)) return undefined;
  const band = inkRows(img, x0, x0 + lead * advance);
  if (!band) return undefined;
  const capH = band.bottom - band.top + 1;
  const margin = (capH * GRID_MARGIN) / GRID_CAP;
  const weighted = WEIGHTS.map((w) => (w === 0 ? img : morph(img, Math.abs(w), w > 0)));
  const byChar = [...MRZ_ALPHABET].map((_, i) => {
    const left = x0 + (lead + i) * advance;
    return weighted.flatMap((plane) => {
      const cell = sampleArea(plane, left, band.top - margin, advance, capH + 2 * margin);
      return GRID_BLURS.map((sigma) => normalise(blurGrid(cell, sigma)));
    });
  });
  return byChar;
}

interface Plane {
  data: Float32Array;
  width: number;
  height: number;
}

/** Left edges of the runs of inked columns in [from, to): an H inks every column from stem to stem, so each H is one run. */
function inkRuns(img: Plane, from: number, to: number): number[] {
  const starts: number[] = [];
  let prev = false;
  for (let x = Math.floor(from); x < Math.min(img.width, to); x++) {
    let ink = false;
    for (let y = 0; y < img.height && !ink; y++) ink = img.data[y * img.width + x]! > 0.5;
    if (ink && !prev) starts.push(x);
    prev = ink;
  }
  return starts;
}

function inkRows(img: Plane, from: number, to: number): { top: number; bottom: number } | undefined {
  let top = -1;
  let bottom = -1;
  for (let y = 0; y < img.height; y++) {
    let any = false;
    for (let x = Math.floor(from); x < Math.min(img.width, to) && !any; x++) any = img.data[y * img.width + x]! > 0.5;
    if (any) {
      if (top < 0) top = y;
      bottom = y;
    }
  }
  return top < 0 ? undefined : { top, bottom };
}

/** Square dilation (or erosion) by `r` pixels, separable. */
function morph(img: Plane, r: number, dilate: boolean): Plane {
  const { width: w, height: h } = img;
  const pick = (a: number, b: number) => (dilate ? (a > b ? a : b) : a < b ? a : b);
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = img.data[y * w + x]!;
      for (let d = -r; d <= r; d++) v = pick(v, img.data[y * w + Math.min(w - 1, Math.max(0, x + d))]!);
      tmp[y * w + x] = v;
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = tmp[y * w + x]!;
      for (let d = -r; d <= r; d++) v = pick(v, tmp[Math.min(h - 1, Math.max(0, y + d)) * w + x]!);
      out[y * w + x] = v;
    }
  return { data: out, width: w, height: h };
}

/** Area average of the rectangle (left, top, w, h) onto the grid. */
function sampleArea(img: Plane, left: number, top: number, w: number, h: number): Float32Array {
  const out = new Float32Array(GRID_W * GRID_H);
  for (let gy = 0; gy < GRID_H; gy++)
    for (let gx = 0; gx < GRID_W; gx++) {
      const xa = Math.floor(left + (gx * w) / GRID_W);
      const xb = Math.max(xa + 1, Math.floor(left + ((gx + 1) * w) / GRID_W));
      const ya = Math.floor(top + (gy * h) / GRID_H);
      const yb = Math.max(ya + 1, Math.floor(top + ((gy + 1) * h) / GRID_H));
      let s = 0;
      let n = 0;
      for (let y = ya; y < yb; y++)
        for (let x = xa; x < xb; x++) {
          if (x >= 0 && y >= 0 && x < img.width && y < img.height) s += img.data[y * img.width + x]!;
          n++;
        }
      out[gy * GRID_W + gx] = s / n;
    }
  return out;
}

/** Gaussian blur on the grid (edges repeated). */
export function blurGrid(g: Float32Array, sigma: number): Float32Array {
  const r = Math.ceil(2 * sigma);
  const k = Array.from({ length: 2 * r + 1 }, (_, i) => Math.exp(-((i - r) ** 2) / (2 * sigma * sigma)));
  const ks = k.reduce((a, b) => a + b, 0);
  const tmp = new Float32Array(g.length);
  const out = new Float32Array(g.length);
  for (let y = 0; y < GRID_H; y++)
    for (let x = 0; x < GRID_W; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += k[d + r]! * g[y * GRID_W + Math.min(GRID_W - 1, Math.max(0, x + d))]!;
      tmp[y * GRID_W + x] = s / ks;
    }
  for (let y = 0; y < GRID_H; y++)
    for (let x = 0; x < GRID_W; x++) {
      let s = 0;
      for (let d = -r; d <= r; d++) s += k[d + r]! * tmp[Math.min(GRID_H - 1, Math.max(0, y + d)) * GRID_W + x]!;
      out[y * GRID_W + x] = s / ks;
    }
  return out;
}

/**
 * Zero mean, unit norm (a flat cell stays all zeros), in place: the dot product of two is
 * their normalised cross-correlation. In place because cells are sampled by the thousand
 * per zone, and a second array each doubled the garbage collector's work.
 */
export function normalise(g: Float32Array): Float32Array {
  let mean = 0;
  for (let i = 0; i < g.length; i++) mean += g[i]!;
  mean /= g.length;
  let ss = 0;
  for (let i = 0; i < g.length; i++) {
    g[i] = g[i]! - mean;
    // v * v, not v ** 2: the same value (fdlibm's pow squares by multiplying), without a
    // call to pow per value (it was the glyph stage's costliest line).
    const v = g[i]!;
    ss += v * v;
  }
  const norm = Math.sqrt(ss);
  if (norm > 1e-6) for (let i = 0; i < g.length; i++) g[i] = g[i]! / norm;
  else g.fill(0);
  return g;
}
