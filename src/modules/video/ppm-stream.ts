/** One decoded frame: RGB interleaved, as ffmpeg's PPM encoder writes it. */
export interface RawFrame {
  data: Buffer;
  width: number;
  height: number;
}

const MAX_HEADER = 64;
const MAX_SIDE = 16384;

/**
 * Splits ffmpeg's `-f image2pipe -c:v ppm` output into frames. Each binary PPM
 * ("P6\n<w> <h>\n255\n" + w*h*3 bytes) carries its own size, so the stream needs no
 * probing and survives a resolution change. Each frame is copied once, into a
 * buffer of its exact size; a corrupt header throws (the supervisor restarts ffmpeg).
 */
export class PpmStreamParser {
  private header = Buffer.alloc(0);
  private frame: Buffer | null = null;
  private filled = 0;
  private width = 0;
  private height = 0;

  constructor(private readonly onFrame: (frame: RawFrame) => void) {}

  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.frame) {
        const n = Math.min(this.frame.length - this.filled, chunk.length - offset);
        chunk.copy(this.frame, this.filled, offset, offset + n);
        this.filled += n;
        offset += n;
        if (this.filled === this.frame.length) {
          const data = this.frame;
          this.frame = null;
          this.filled = 0;
          this.onFrame({ data, width: this.width, height: this.height });
        }
        continue;
      }
      // Header: gather bytes until "P6 <w> <h> <maxval>" and its single trailing whitespace.
      const take = Math.min(MAX_HEADER - this.header.length, chunk.length - offset);
      const candidate = Buffer.concat([this.header, chunk.subarray(offset, offset + take)]);
      const parsed = parseHeader(candidate);
      if (parsed === 'incomplete') {
        if (candidate.length >= MAX_HEADER) throw new Error('PPM stream: header too long');
        this.header = candidate;
        offset += take;
        continue;
      }
      const consumedFromChunk = parsed.length - this.header.length;
      this.header = Buffer.alloc(0);
      offset += consumedFromChunk;
      this.width = parsed.width;
      this.height = parsed.height;
      this.frame = Buffer.allocUnsafe(parsed.width * parsed.height * 3);
      this.filled = 0;
    }
  }

  /** Bytes of a frame still being assembled (a stream cut mid-frame leaves some). */
  pendingBytes(): number {
    return this.header.length + this.filled;
  }
}

/** Parses "P6<ws><w><ws><h><ws>255<one ws>"; returns the header length in bytes. */
export function parseHeader(buf: Buffer): { width: number; height: number; length: number } | 'incomplete' {
  if (buf.length < 2) return 'incomplete';
  if (buf[0] !== 0x50 || buf[1] !== 0x36) throw new Error('PPM stream: frame does not start with P6');
  const fields: number[] = [];
  let i = 2;
  while (fields.length < 3) {
    while (i < buf.length && isSpace(buf[i]!)) i++;
    if (i >= buf.length) return 'incomplete';
    const start = i;
    while (i < buf.length && buf[i]! >= 0x30 && buf[i]! <= 0x39) i++;
    if (i >= buf.length) return 'incomplete';
    if (i === start || !isSpace(buf[i]!)) throw new Error('PPM stream: malformed header');
    fields.push(Number(buf.toString('latin1', start, i)));
  }
  const [width, height, maxval] = fields as [number, number, number];
  if (maxval !== 255) throw new Error(`PPM stream: maxval ${maxval} (only 8-bit frames are read)`);
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) throw new Error(`PPM stream: bad size ${width}x${height}`);
  return { width, height, length: i + 1 };
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}
