import type { Worker } from 'node:worker_threads';
import { startWorker } from '../runtime/start-worker.js';
import type { BmpJob, BmpReply } from './bmp-decode-thread.js';
import type { RgbImage } from './image-decode.js';

/**
 * Windows bitmaps, which libvips (and so sharp) does not read, decoded by bmp-ts on a worker
 * thread of their own. The thread starts with the first BMP and holds the process open only
 * while a decode is pending; if it dies, its pending decodes fail and the next one starts a new
 * thread.
 */
class BmpDecoder {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (img: RgbImage) => void; reject: (err: Error) => void }>();

  decode(bytes: Buffer): Promise<RgbImage> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<RgbImage>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      const job: BmpJob = { id, bytes };
      worker.postMessage(job);
    });
  }

  private start(): Worker {
    const worker = startWorker(import.meta.url, 'bmp-decode-thread');
    worker.on('message', (reply: BmpReply) => {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (!waiter) return;
      if (reply.ok) waiter.resolve({ data: Buffer.from(reply.data.buffer, reply.data.byteOffset, reply.data.byteLength), width: reply.width, height: reply.height });
      else waiter.reject(new Error(reply.message));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiter of this.pending.values()) waiter.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`BMP decoding thread exited with code ${code}`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

const decoder = new BmpDecoder();

/** Decodes a BMP's pixels off the event loop; rejects with bmp-ts's message on a corrupt file. */
export function decodeBmpPixels(bytes: Buffer): Promise<RgbImage> {
  return decoder.decode(bytes);
}
