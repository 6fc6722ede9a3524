import type { WorkerModel } from '../../runtime/inference-worker.js';
import type { ImageFeed } from '../../runtime/image-feed.js';
import type { CtcMatrix } from './ctc-decode.js';
import type { LineImage } from './line-crop.js';

/** The recogniser's fixed input height (PaddleOCR's rec_image_shape 3x48x320). */
export const REC_HEIGHT = 48;
/** Input widths are rounded up to the network's 8-pixel step (one CTC timestep per 8 columns). */
export const WIDTH_STEP = 8;

/**
 * A line crop as the recogniser's input, filled in the inference worker (image-feed.ts): B, G, R
 * planes of byte / 127.5 - 1, the padding up to the 8-pixel step 0. The crop's bytes cross to the
 * worker instead of 12 bytes of floats a pixel filled on the event loop (about 13 ms of a /mrz
 * request's main-thread time); (byte - 127.5) / 127.5 is the same float32 for every byte.
 */
export function lineFeed(name: string, line: LineImage): ImageFeed {
  const w = Math.ceil(line.width / WIDTH_STEP) * WIDTH_STEP;
  if (line.data.length !== REC_HEIGHT * line.width * 3) throw new Error(`line crop of ${line.data.length} bytes for ${line.width}x${REC_HEIGHT}`);
  return {
    name,
    rgb: line.data,
    width: line.width,
    height: REC_HEIGHT,
    dims: [1, 3, REC_HEIGHT, w],
    offsetX: 0,
    offsetY: 0,
    order: 'bgr',
    mean: 127.5,
    std: 127.5,
    padByte: 127.5,
    widthVaries: true,
  };
}

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
    const feed = lineFeed(this.model.inputNames[0]!, line);
    const w = feed.dims[3];
    const output = this.model.outputNames[0]!;
    const { reduced } = await this.model.runReduced([], { output, keep: this.kept }, feed);
    // Timesteps past the line's own width only saw padding.
    const steps = Math.min(reduced.rows, Math.ceil((line.width / w) * reduced.rows));
    return { steps, best: reduced.argmax, bestProb: reduced.max, kept: this.kept, keptProbs: reduced.kept };
  }
}
