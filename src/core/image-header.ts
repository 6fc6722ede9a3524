/**
 * Size and decode cost of an uploaded JPEG, PNG or BMP, read from its header bytes, before libvips
 * decodes anything: the pixel budget needs width x height, and a progressive JPEG costs one
 * pass over the whole image per scan (a 160 KB file with 100 scans took 0.9 s of CPU), which
 * no libvips or sharp option bounds.
 */
export interface ImageHeader {
  width: number;
  height: number;
  /** JPEG: start-of-scan segments in the file (1 for baseline interleaved); PNG: 1. */
  scans: number;
  progressive: boolean;
}

/** SOFn markers that carry the frame size (C4 DHT, C8 JPG and CC DAC are not frames). */
function isSof(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/**
 * Walks the JPEG marker segments and counts SOS segments, skipping entropy-coded data with
 * Buffer.indexOf (native) so a 20 MB file costs a few milliseconds, not a byte loop in JS.
 * Returns null when the structure is broken before a frame header (libvips then words the 400).
 */
export function readJpegHeader(buf: Buffer): ImageHeader | null {
  let pos = 2; // after SOI
  let width = 0;
  let height = 0;
  let progressive = false;
  let scans = 0;
  while (pos + 4 <= buf.length) {
    if (buf[pos] !== 0xff) return width ? { width, height, scans, progressive } : null;
    const marker = buf[pos + 1]!;
    if (marker === 0xff) {
      pos++; // fill byte
      continue;
    }
    if (marker === 0xd9) break; // EOI
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      pos += 2; // RSTn and TEM carry no length
      continue;
    }
    const length = buf.readUInt16BE(pos + 2);
    if (length < 2) return null;
    if (isSof(marker) && pos + 9 <= buf.length) {
      height = buf.readUInt16BE(pos + 5);
      width = buf.readUInt16BE(pos + 7);
      progressive = marker === 0xc2 || marker === 0xc6 || marker === 0xca || marker === 0xce;
    }
    pos += 2 + length;
    if (marker === 0xda) {
      scans++;
      // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor RSTn.
      for (;;) {
        const ff = buf.indexOf(0xff, pos);
        if (ff < 0 || ff + 1 >= buf.length) return width ? { width, height, scans, progressive } : null;
        const next = buf[ff + 1]!;
        if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) {
          pos = ff + 1;
          continue;
        }
        pos = ff;
        break;
      }
    }
  }
  return width ? { width, height, scans, progressive } : null;
}

/** PNG's IHDR is the first chunk: width and height at bytes 16 and 20. */
export function readPngHeader(buf: Buffer): ImageHeader | null {
  if (buf.length < 24 || buf.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20), scans: 1, progressive: false };
}

/** DIB header sizes that carry a 32-bit width and height (BITMAPINFOHEADER and its V2-V5 successors). */
const BMP_INFO_HEADER_SIZES = new Set([40, 52, 56, 108, 124]);

/**
 * A Windows bitmap's file header (`BM`) and DIB header: width at byte 18, height at 22 (negative
 * for rows stored top-down). Document scanners and passport readers write BMP. Null when the
 * header is not one of the 32-bit-size kinds, the 1990s OS/2 12-byte header included.
 */
export function readBmpHeader(buf: Buffer): ImageHeader | null {
  if (buf.length < 30 || buf.toString('latin1', 0, 2) !== 'BM' || !BMP_INFO_HEADER_SIZES.has(buf.readUInt32LE(14))) return null;
  const width = buf.readInt32LE(18);
  const height = Math.abs(buf.readInt32LE(22));
  if (width <= 0 || height <= 0) return null;
  return { width, height, scans: 1, progressive: false };
}
