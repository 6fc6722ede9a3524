import sharp, { type Sharp } from 'sharp';
import { AppError, BadRequestError } from './errors.js';
import { decodeBmpPixels } from './bmp-decoder.js';
import { readBmpHeader, readJpegHeader, readPngHeader } from './image-header.js';
import { decodeLimits } from './pixel-budget.js';

/** An upright (EXIF applied), 3-channel sRGB image as interleaved RGB bytes. */
export interface RgbImage {
  data: Buffer;
  width: number;
  height: number;
}

/** Still formats this build decodes; the content decides, never the file name or content type. */
export const ACCEPTED_IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff', 'bmp'] as const;
export type ImageFormat = (typeof ACCEPTED_IMAGE_FORMATS)[number];

const ACCEPTED_IMAGE_NAMES = 'JPEG, PNG, WebP, AVIF, GIF, TIFF or BMP';
/** One line for the OpenAPI descriptions of every image field. */
export const ACCEPTED_IMAGE_TEXT = `${ACCEPTED_IMAGE_NAMES} (the first frame of an animation, the first page of a TIFF); the content decides, not the name`;

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// ISO-BMFF brands: AVIF is AV1 in HEIF and sharp's bundled libheif decodes it; HEIC is HEVC in
// HEIF, and the prebuilt libvips carries no HEVC decoder (a patent-encumbered codec).
const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1']);

/**
 * Magic-byte sniffing. Returns the format, 'heic' for an HEVC-coded HEIF (recognised so that its
 * 415 can say why), or null for anything else (PDF, SVG, text...). SVG is refused on purpose: it
 * is a vector document that libvips would render, references included.
 */
export function sniffImageFormat(buf: Buffer): ImageFormat | 'heic' | null {
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'jpeg';
  if (buf.length >= 8 && buf.subarray(0, 8).equals(PNG_MAGIC)) return 'png';
  if (buf.length >= 12 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (buf.length >= 6 && /^GIF8[79]a$/.test(buf.toString('latin1', 0, 6))) return 'gif';
  if (buf.length >= 4 && (buf.toString('latin1', 0, 4) === 'II*\0' || buf.toString('latin1', 0, 4) === 'MM\0*')) return 'tiff';
  // Scanners and passport readers write BMP; only the kinds whose header gives a 32-bit size.
  if (readBmpHeader(buf)) return 'bmp';
  return sniffHeif(buf);
}

/** The `ftyp` box of a HEIF file: major brand, then compatible brands (AVIF wins when listed). */
function sniffHeif(buf: Buffer): 'avif' | 'heic' | null {
  if (buf.length < 16 || buf.toString('latin1', 4, 8) !== 'ftyp') return null;
  const boxEnd = Math.min(buf.readUInt32BE(0), buf.length);
  const brands = [buf.toString('latin1', 8, 12)];
  for (let o = 16; o + 4 <= boxEnd; o += 4) brands.push(buf.toString('latin1', o, o + 4));
  if (brands.some((b) => AVIF_BRANDS.has(b))) return 'avif';
  if (brands.some((b) => HEIC_BRANDS.has(b))) return 'heic';
  return null;
}

export interface DecodeOptions {
  /** Form field the bytes came from, named in every error. */
  field: string;
  /** Largest width x height accepted (decompression-bomb guard). */
  maxPixels: number;
}

/**
 * Decodes an uploaded image off the event loop (libvips runs on the libuv pool). Only the first
 * frame or page is read (sharp's default of one page). 415 for other formats, 413 past the pixel
 * limit (checked from the header before any pixel is decoded), 400 INVALID_IMAGE for truncated or
 * corrupt files.
 */
export async function decodeImage(buf: Buffer, options: DecodeOptions): Promise<RgbImage> {
  const { field, maxPixels } = options;
  if (buf.length === 0) throw new BadRequestError('INVALID_IMAGE', `file field "${field}" is empty`, { field });
  const format = sniffImageFormat(buf);
  if (format === 'heic') {
    throw new AppError(415, 'UNSUPPORTED_IMAGE_TYPE', `file field "${field}" is an HEVC-coded HEIC image, which this build cannot decode; send ${ACCEPTED_IMAGE_NAMES}`, { field });
  }
  if (!format) {
    throw new AppError(415, 'UNSUPPORTED_IMAGE_TYPE', `file field "${field}" is not a supported image: send ${ACCEPTED_IMAGE_NAMES}`, { field });
  }
  // The header is read here, before libvips: the pixel limit and the scan cap refuse a bomb
  // without decoding it, and the pixel budget bounds how much is decoded at once.
  // WebP, AVIF, GIF and TIFF have no header reader here: libvips checks their pixel limit as it
  // opens them, and they take the largest share of the pixel budget.
  const header = format === 'jpeg' ? readJpegHeader(buf) : format === 'png' ? readPngHeader(buf) : format === 'bmp' ? readBmpHeader(buf) : null;
  if (header && header.width * header.height > maxPixels) {
    throw new AppError(413, 'IMAGE_TOO_LARGE', `file field "${field}" is ${header.width}x${header.height}; at most ${maxPixels} pixels are accepted`, { field });
  }
  if (header && header.scans > decodeLimits.maxJpegScans) {
    throw new AppError(413, 'JPEG_TOO_COMPLEX', `file field "${field}" is a JPEG with ${header.scans} scans; at most ${decodeLimits.maxJpegScans} are accepted (limits.max_jpeg_scans)`, { field });
  }
  const release = await decodeLimits.budget.acquire(header ? Math.max(1, header.width * header.height) : maxPixels);
  try {
    return format === 'bmp' ? await decodeBmp(buf, field) : await decodePixels(buf, field, format, maxPixels);
  } finally {
    release();
  }
}

async function decodePixels(buf: Buffer, field: string, format: ImageFormat, maxPixels: number): Promise<RgbImage> {
  // One libvips pass: the pixel limit is checked against the header when the file is opened,
  // before any pixel is decoded (the decompression-bomb guard), and flatten is a no-op without
  // alpha. A separate metadata() read first cost a thread-pool round trip on every upload
  // (0.2 to 0.4 ms of a 2 ms decode at 640x480); it now runs only to word the 413.
  try {
    const { data, info } = await sharp(buf, { limitInputPixels: maxPixels, failOn: 'truncated' })
      .rotate()
      // Transparent areas become white rather than whatever colour hides under alpha 0.
      .flatten({ background: '#ffffff' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`unexpected ${info.channels} channels after conversion`);
    return { data, width: info.width, height: info.height };
  } catch (err) {
    const message = (err as Error).message;
    if (message.includes('exceeds pixel limit')) throw await tooLarge(buf, field, maxPixels);
    throw new BadRequestError('INVALID_IMAGE', `file field "${field}" could not be decoded as ${format} (truncated or corrupt): ${message}`, { field });
  }
}

/** BMP has no orientation, alpha worth keeping or colour profile: bmp-ts's pixels are the image. */
async function decodeBmp(buf: Buffer, field: string): Promise<RgbImage> {
  try {
    return await decodeBmpPixels(buf);
  } catch (err) {
    throw new BadRequestError('INVALID_IMAGE', `file field "${field}" could not be decoded as bmp (truncated or corrupt): ${(err as Error).message}`, { field });
  }
}

/** 413 IMAGE_TOO_LARGE naming the image's size, read from its header. */
async function tooLarge(buf: Buffer, field: string, maxPixels: number): Promise<AppError> {
  const { width, height } = await sharp(buf, { limitInputPixels: false })
    .metadata()
    .catch(() => ({ width: undefined, height: undefined }));
  const size = width && height ? `${width}x${height}` : 'larger than the limit';
  return new AppError(413, 'IMAGE_TOO_LARGE', `file field "${field}" is ${size}; at most ${maxPixels} pixels are accepted`, { field });
}

/** sharp pipeline over an RgbImage, for crops, resizes and re-encoding. */
export function sharpFromRgb(img: RgbImage): Sharp {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });
}
