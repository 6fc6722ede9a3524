import { floatFeed, type WorkerModel } from '../../runtime/inference-worker.js';
import type { CtcMatrix } from './ctc-decode.js';
import type { LineImage } from './line-crop.js';

/** The recogniser's fixed input height (PaddleOCR's rec_image_shape 3x48x320). */
export const REC_HEIGHT = 48;
/** Input widths are rounded up to the network's 8-pixel step (one CTC timestep per 8 columns). */
export const WIDTH_STEP = 8;

/** Byte -> byte / 127.5 - 1, the recogniser's input scaling. */
const TO_UNIT = Float32Array.from({ length: 256 }, (_, v) => v / 127.5 - 1);

/**
 * PP-OCRv4 line recognition, one run per line, issued as each line is cut. Measured on
 * a passport page's 30 lines (CPU, onnxruntime): PaddleOCR-style batches of 6
 * similar widths padded to at least 320 cost 1.6x the CPU time of single-line
 * runs (padding, and the batched graph itself is slower per column), and
 * concurrent runs spread over the inference pool's workers. Each output is reduced
 * in the worker to what the readers use (see CtcMatrix).
 */
export class TextRecognizer {
  constructor(
    private readonly model: WorkerModel,
    /** Classes whose probability is kept at every timestep (the blank and the MRZ alphabet). */
    private readonly kept: readonly number[],
  ) {}

  /** Posts the run at once (see OcrEngine.readQuads for the order lines are issued in). */
  async recognize(line: LineImage): Promise<CtcMatrix> {
    const w = Math.ceil(line.width / WIDTH_STEP) * WIDTH_STEP;
    const plane = REC_HEIGHT * w;
    const input = new Float32Array(3 * plane);
    const data = line.data;
    for (let y = 0; y < REC_HEIGHT; y++) {
      for (let x = 0, p = y * line.width * 3, q = y * w; x < line.width; x++, p += 3, q++) {
        // RGB bytes -> B, G, R planes scaled to [-1, 1]; padding stays 0. A table lookup, the
        // same floats as dividing: this runs on the event loop for every crop read.
        input[q] = TO_UNIT[data[p + 2]!]!;
        input[plane + q] = TO_UNIT[data[p + 1]!]!;
        input[2 * plane + q] = TO_UNIT[data[p]!]!;
      }
    }
    const output = this.model.outputNames[0]!;
    const { reduced } = await this.model.runReduced([floatFeed(this.model.inputNames[0]!, input, [1, 3, REC_HEIGHT, w])], { output, keep: this.kept });
    // Timesteps past the line's own width only saw padding.
    const steps = Math.min(reduced.rows, Math.ceil((line.width / w) * reduced.rows));
    return { steps, best: reduced.argmax, bestProb: reduced.max, kept: this.kept, keptProbs: reduced.kept };
  }
}
