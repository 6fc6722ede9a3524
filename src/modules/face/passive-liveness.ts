import type { RgbImage } from '../../core/image-decode.js';
import type { WorkerModel } from '../../runtime/inference-worker.js';
import { cropResize } from './face-align.js';
import type { Box } from './face-geometry.js';
import { cropFeed } from './face-recognizer.js';

/** MiniFASNet input: BGR, raw 0..255 (minivision's ToTensor does not divide by 255). */
const LAYOUT = { order: 'bgr', mean: 0, std: 1 } as const;
const INPUT = 80;
/** Softmax index of the "real face" class (0 and 2 are spoof types). */
const REAL = 1;

/**
 * minivision CropImage._get_new_box: the box grown by `scale` around its centre (capped
 * so it fits the image), shifted back inside the image, as integer pixel bounds.
 */
export function livenessCropBox(w: number, h: number, box: Box, scale: number): [number, number, number, number] {
  const bw = Math.max(1, box[2] - box[0]);
  const bh = Math.max(1, box[3] - box[1]);
  const s = Math.min((h - 1) / bh, (w - 1) / bw, scale);
  const nw = bw * s,
    nh = bh * s;
  const cx = box[0] + bw / 2,
    cy = box[1] + bh / 2;
  let x1 = cx - nw / 2,
    y1 = cy - nh / 2,
    x2 = cx + nw / 2,
    y2 = cy + nh / 2;
  if (x1 < 0) {
    x2 -= x1;
    x1 = 0;
  }
  if (y1 < 0) {
    y2 -= y1;
    y1 = 0;
  }
  if (x2 > w - 1) {
    x1 -= x2 - w + 1;
    x2 = w - 1;
  }
  if (y2 > h - 1) {
    y1 -= y2 - h + 1;
    y2 = h - 1;
  }
  return [Math.trunc(x1), Math.trunc(y1), Math.trunc(x2), Math.trunc(y2)];
}

function softmax(logits: Float32Array): number[] {
  const max = Math.max(...logits);
  const e = Array.from(logits, (l) => Math.exp(l - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

export interface LivenessModel {
  model: WorkerModel;
  /** Crop scale the model was trained with (2.7 for V2, 4.0 for V1SE). */
  scale: number;
}

/**
 * Passive liveness as Silent-Face-Anti-Spoofing's test.py does it: each model sees its own
 * crop of the face, the softmaxes are averaged, and the face is live when the averaged
 * argmax is the real class. `score` is the averaged real-class probability (0..1).
 */
export class PassiveLiveness {
  constructor(private readonly models: LivenessModel[]) {}

  async check(img: RgbImage, box: Box): Promise<{ is_live: boolean; score: number }> {
    const sum = [0, 0, 0];
    // Both models at once: the inference pool runs them on different workers when it can.
    const outs = await Promise.all(
      this.models.map(({ model, scale }) => {
        const [x1, y1, x2, y2] = livenessCropBox(img.width, img.height, box, scale);
        const crop = cropResize(img, x1, y1, x2, y2, INPUT, INPUT);
        // The crop is this model's alone: its bytes are handed over, not copied.
        return model.runImage(cropFeed(model.inputNames[0]!, crop, LAYOUT), true).then((out) => out[model.outputNames[0]!]!);
      }),
    );
    for (const out of outs) softmax(out.data as Float32Array).forEach((p, i) => (sum[i] = (sum[i] ?? 0) + p));
    const avg = sum.map((v) => v / this.models.length);
    const best = avg.indexOf(Math.max(...avg));
    return { is_live: best === REAL, score: avg[REAL]! };
  }
}
