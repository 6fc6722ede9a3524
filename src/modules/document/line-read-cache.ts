import type { RgbImage } from '../../core/image-decode.js';
import type { Quad } from './geometry.js';
import type { CropOptions } from './line-crop.js';
import type { LineRead } from './ocr-engine.js';

/**
 * A request's recogniser reads, by image, quad and crop options, so that a crop read once is
 * not read again. The MRZ reader asks for the same crop more than once in one request: the
 * tight names read and the tight pass over the zone cut the names row alike, and the zone's
 * candidate row sets share rows that each set's tight pass reads (on generated documents, 7.6%
 * of the recogniser's input columns, most of it on the slowest documents). The reads are
 * deterministic, so a cached read is the read. Entries live as long as their image: the page
 * and the upload are a request's own objects, dropped with it (a request's crops, a few MB, are
 * held until then rather than dropped after their read).
 */
export class LineReadCache {
  private readonly byImage = new WeakMap<RgbImage, Map<string, Promise<LineRead>>>();

  /**
   * Each quad's read: from an earlier call on the same image with the same options, else from
   * `read`, called once with every quad not read yet (not called when there is none).
   */
  read(img: RgbImage, quads: Quad[], opts: CropOptions, read: (missing: Quad[]) => Promise<LineRead[]>): Promise<LineRead[]> {
    let memo = this.byImage.get(img);
    if (!memo) {
      memo = new Map();
      this.byImage.set(img, memo);
    }
    const optsKey = JSON.stringify(opts);
    const keys = quads.map((q) => `${optsKey}|${q.map((p) => `${p.x},${p.y}`).join(';')}`);
    const missing: number[] = [];
    const queued = new Set<string>();
    for (const [i, k] of keys.entries()) {
      if (memo.has(k) || queued.has(k)) continue;
      queued.add(k);
      missing.push(i);
    }
    if (missing.length > 0) {
      const batch = read(missing.map((i) => quads[i]!));
      for (const [j, i] of missing.entries())
        memo.set(
          keys[i]!,
          batch.then((reads) => reads[j]!),
        );
    }
    return Promise.all(keys.map((k) => memo.get(k)!));
  }
}
