import type { TensorSession } from '../../runtime/tensor-session.js';
import ort from 'onnxruntime-node';
import type { CtcMatrix } from './ctc-decode.js';
import type { LineImage } from './line-crop.js';

/** The recogniser's fixed input height (PaddleOCR's rec_image_shape 3x48x320). */
export const REC_HEIGHT = 48;
/** Input widths are rounded up to the network's 8-pixel step (one CTC timestep per 8 columns). */
const WIDTH_STEP = 8;

/**
 * PP-OCRv4 line recognition, one run per line, all issued at once. Measured on
 * a passport page's 30 lines (CPU, onnxruntime): PaddleOCR-style batches of 6
 * similar widths padded to at least 320 cost 1.6x the CPU time of single-line
 * runs (padding, and the batched graph itself is slower per column), and
 * concurrent runs spread over the inference pool's workers.
 */
export class TextRecognizer {
  constructor(private readonly session: TensorSession) {}

  /** Widest lines are issued first, so the pool's workers finish together (no long line left for last). */
  async recognize(lines: LineImage[]): Promise<CtcMatrix[]> {
    const order = lines.map((_, i) => i).sort((a, b) => lines[b]!.width - lines[a]!.width);
    const results: CtcMatrix[] = new Array<CtcMatrix>(lines.length);
    await Promise.all(order.map(async (i) => (results[i] = await this.recognizeOne(lines[i]!))));
    return results;
  }

  private async recognizeOne(line: LineImage): Promise<CtcMatrix> {
    const w = Math.ceil(line.width / WIDTH_STEP) * WIDTH_STEP;
    const plane = REC_HEIGHT * w;
    const input = new Float32Array(3 * plane);
    for (let y = 0; y < REC_HEIGHT; y++) {
      for (let x = 0; x < line.width; x++) {
        const p = (y * line.width + x) * 3;
        const q = y * w + x;
        // RGB bytes -> B, G, R planes scaled to [-1, 1]; padding stays 0.
        input[q] = line.data[p + 2]! / 127.5 - 1;
        input[plane + q] = line.data[p + 1]! / 127.5 - 1;
        input[2 * plane + q] = line.data[p]! / 127.5 - 1;
      }
    }
    const feeds = { [this.session.inputNames[0]!]: new ort.Tensor('float32', input, [1, 3, REC_HEIGHT, w]) };
    const out = (await this.session.run(feeds))[this.session.outputNames[0]!]!;
    const [, steps, classes] = out.dims as [number, number, number];
    // Timesteps past the line's own width only saw padding.
    const own = Math.min(steps, Math.ceil((line.width / w) * steps));
    return { probs: (out.data as Float32Array).subarray(0, own * classes), steps: own, classes };
  }
}
