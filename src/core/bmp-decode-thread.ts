import { parentPort } from 'node:worker_threads';
import { decode } from 'bmp-ts';

/**
 * Worker entry for bmp-decoder.ts. bmp-ts is plain JavaScript, pixel by pixel (30-70 ms for a
 * 916x642 scan), so it runs here rather than on the event loop.
 */
export interface BmpJob {
  id: number;
  bytes: Uint8Array;
}

export type BmpReply = { id: number; ok: true; data: Uint8Array; width: number; height: number } | { id: number; ok: false; message: string };

parentPort?.on('message', (job: BmpJob) => {
  let reply: BmpReply;
  try {
    // bmp-ts gives every bit depth as ABGR, rows top-down; alpha is dropped, as for the other formats.
    const img = decode(Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength));
    const pixels = img.width * Math.abs(img.height);
    const rgb = new Uint8Array(pixels * 3);
    const abgr = img.data;
    for (let p = 0, s = 0, d = 0; p < pixels; p++, s += 4, d += 3) {
      rgb[d] = abgr[s + 3]!;
      rgb[d + 1] = abgr[s + 2]!;
      rgb[d + 2] = abgr[s + 1]!;
    }
    reply = { id: job.id, ok: true, data: rgb, width: img.width, height: Math.abs(img.height) };
  } catch (err) {
    reply = { id: job.id, ok: false, message: (err as Error).message };
  }
  parentPort!.postMessage(reply, reply.ok ? [reply.data.buffer as ArrayBuffer] : []);
});
