import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A valid PNG header claiming width x height, with one tiny IDAT: a decompression bomb's shape without its bytes. */
export function pngBombHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(16))), chunk('IEND', Buffer.alloc(0))]);
}

/** A solid-colour PNG of the given size. */
export function solidPng(width: number, height: number, channels: 3 | 4 = 3): Promise<Buffer> {
  return sharp({ create: { width, height, channels, background: { r: 128, g: 128, b: 128, alpha: 1 } } })
    .png()
    .toBuffer();
}

/**
 * A progressive JPEG with `scans` scans (one DC scan, then one AC coefficient band per
 * component per scan), re-encoded losslessly by jpegtran (libjpeg-turbo-progs): the shape of
 * the "160 KB, 100 scans, 0.9 s of CPU" upload.
 */
export async function manyScanJpeg(scans: number, width = 2048, height = 2048): Promise<Buffer> {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const bands = Math.ceil((scans - 1) / 3);
  if (bands < 1 || bands > 63) throw new Error('scans must be 4..190');
  const lines = ['0,1,2: 0-0, 0, 0;'];
  for (let k = 1; k <= bands; k++) for (const c of [0, 1, 2]) if (lines.length < scans) lines.push(`${c}: ${k}-${k}, 0, 0;`);
  const base = await sharp({ create: { width, height, channels: 3, background: { r: 90, g: 140, b: 200 } } })
    .composite([
      {
        input: await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 250, g: 20, b: 20 } } })
          .png()
          .toBuffer(),
        tile: true,
      },
    ])
    .jpeg({ quality: 60 })
    .toBuffer();
  const dir = mkdtempSync(join(tmpdir(), 'vigil-scans-'));
  try {
    writeFileSync(join(dir, 'in.jpg'), base);
    writeFileSync(join(dir, 'scans.txt'), lines.join('\n'));
    return execFileSync('jpegtran', ['-scans', join(dir, 'scans.txt'), join(dir, 'in.jpg')], { maxBuffer: 64 * 1024 * 1024 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
