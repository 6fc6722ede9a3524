/**
 * Windows bitmaps written byte by byte from the format's definition, so the tests of the BMP
 * intake do not lean on the library that decodes them: BITMAPINFOHEADER, rows padded to four
 * bytes, bottom-up unless `topDown` (negative height); 24-bit BGR, or 8-bit indices into a
 * palette of BGRx entries.
 */
export interface BmpSpec {
  width: number;
  height: number;
  /** Row-major RGB triples, top row first. */
  rgb: [number, number, number][];
  topDown?: boolean;
  /** Write an 8-bit palette image (at most 256 distinct colours) instead of 24-bit. */
  paletted?: boolean;
}

export function encodeBmp(spec: BmpSpec): Buffer {
  const { width, height, rgb, topDown = false, paletted = false } = spec;
  const palette = paletted ? [...new Set(rgb.map((c) => c.join(',')))] : [];
  const bytesPerPixel = paletted ? 1 : 3;
  const stride = Math.ceil((width * bytesPerPixel) / 4) * 4;
  const paletteBytes = palette.length * 4;
  const offset = 14 + 40 + paletteBytes;
  const buf = Buffer.alloc(offset + stride * height);
  buf.write('BM', 0, 'latin1');
  buf.writeUInt32LE(buf.length, 2);
  buf.writeUInt32LE(offset, 10);
  buf.writeUInt32LE(40, 14);
  buf.writeInt32LE(width, 18);
  buf.writeInt32LE(topDown ? -height : height, 22);
  buf.writeUInt16LE(1, 26);
  buf.writeUInt16LE(paletted ? 8 : 24, 28);
  buf.writeUInt32LE(stride * height, 34);
  buf.writeUInt32LE(palette.length, 46);
  palette.forEach((key, i) => {
    const [r, g, b] = key.split(',').map(Number) as [number, number, number];
    buf.writeUInt8(b, 54 + i * 4);
    buf.writeUInt8(g, 55 + i * 4);
    buf.writeUInt8(r, 56 + i * 4);
  });
  for (let y = 0; y < height; y++) {
    const row = offset + (topDown ? y : height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const [r, g, b] = rgb[y * width + x]!;
      if (paletted) buf.writeUInt8(palette.indexOf(`${r},${g},${b}`), row + x);
      else buf.set([b, g, r], row + x * 3);
    }
  }
  return buf;
}
