import type { TensorSession } from '../../runtime/tensor-session.js';
import ort from 'onnxruntime-node';
import type { CtcMatrix } from './ctc-decode.js';
import type { LineImage } from './line-crop.js';

/** The recogniser's fixed input height and the narrowest batch it is fed (PaddleOCR's rec_image_shape 3x48x320). */
export const REC_HEIGHT = 48;
const MIN_WIDTH = 320;
const BATCH = 6;

/**
 * PP-OCRv4 line recognition. Lines are batched by similar width (sorted by aspect
 * ratio, as PaddleOCR does) so little of each batch is padding; each result is the
 * line's own slice of the CTC probability matrix, cut to its real width.
 */
export class TextRecognizer {
  constructor(private readonly session: TensorSession) {}

  async recognize(lines: LineImage[]): Promise<CtcMatrix[]> {
    const order = lines.map((_, i) => i).sort((a, b) => lines[a]!.width - lines[b]!.width);
    const results: CtcMatrix[] = new Array<CtcMatrix>(lines.length);
    for (let s = 0; s < order.length; s += BATCH) {
      const idx = order.slice(s, s + BATCH);
      const batchW = Math.max(MIN_WIDTH, ...idx.map((i) => lines[i]!.width));
      const input = new Float32Array(idx.length * 3 * REC_HEIGHT * batchW);
      const plane = REC_HEIGHT * batchW;
      idx.forEach((li, b) => {
        const line = lines[li]!;
        const off = b * 3 * plane;
        for (let y = 0; y < REC_HEIGHT; y++) {
          for (let x = 0; x < line.width; x++) {
            const p = (y * line.width + x) * 3;
            const q = y * batchW + x;
            // RGB bytes -> B, G, R planes scaled to [-1, 1]; padding stays 0.
            input[off + q] = line.data[p + 2]! / 127.5 - 1;
            input[off + plane + q] = line.data[p + 1]! / 127.5 - 1;
            input[off + 2 * plane + q] = line.data[p]! / 127.5 - 1;
          }
        }
      });
      const feeds = { [this.session.inputNames[0]!]: new ort.Tensor('float32', input, [idx.length, 3, REC_HEIGHT, batchW]) };
      const out = (await this.session.run(feeds))[this.session.outputNames[0]!]!;
      const [, steps, classes] = out.dims as [number, number, number];
      const data = out.data as Float32Array;
      idx.forEach((li, b) => {
        // Timesteps past the line's own width only saw padding.
        const own = Math.min(steps, Math.ceil((lines[li]!.width / batchW) * steps));
        results[li] = { probs: data.subarray(b * steps * classes, (b * steps + own) * classes), steps: own, classes };
      });
    }
    return results;
  }
}
