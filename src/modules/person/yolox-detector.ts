import sharp from 'sharp';
import { floatFeed } from '../../runtime/inference-worker.js';
import type { LoadedModel } from '../../runtime/model-registry.js';

/** A person box in the frame's pixel coordinates. */
export interface Detection {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  score: number;
}

/** An RGB interleaved image (a camera frame or a decoded upload). */
export interface RgbFrame {
  data: Buffer | Uint8Array;
  width: number;
  height: number;
}

const STRIDES = [8, 16, 32] as const;
const PAD = 114;
const PERSON_CLASS = 0;
const CHANNELS = 85;

/**
 * Writes an RGB frame that already fits in size x size into the YOLOX input the
 * MANIFEST prescribes: pasted top-left on a canvas of 114, BGR, raw 0..255, NCHW.
 * One pass over the pixels into a reused buffer.
 */
export function fillLetterbox(frame: RgbFrame, size: number, out: Float32Array): void {
  const { width: w, height: h, data } = frame;
  if (w > size || h > size) throw new Error(`frame ${w}x${h} does not fit the ${size}x${size} detector input`);
  const plane = size * size;
  out.fill(PAD);
  for (let y = 0; y < h; y++) {
    let src = y * w * 3;
    let dst = y * size;
    for (let x = 0; x < w; x++, src += 3, dst++) {
      out[dst] = data[src + 2]!; // B
      out[plane + dst] = data[src + 1]!; // G
      out[2 * plane + dst] = data[src]!; // R
    }
  }
}

/**
 * Decodes YOLOX's raw head output [1, N, 85] (grids of strides 8/16/32, row-major,
 * sigmoid already applied in the graph) into person boxes at or above minScore,
 * divided by the letterbox scale and clipped to the frame.
 */
export function decodePersons(
  output: Float32Array,
  inputSize: number,
  scale: number,
  frameW: number,
  frameH: number,
  minScore: number,
): Detection[] {
  const out: Detection[] = [];
  let a = 0;
  for (const s of STRIDES) {
    const g = inputSize / s;
    for (let gy = 0; gy < g; gy++) {
      for (let gx = 0; gx < g; gx++, a++) {
        const o = a * CHANNELS;
        const score = output[o + 4]! * output[o + 5 + PERSON_CLASS]!;
        if (score < minScore) continue;
        const cx = (output[o]! + gx) * s;
        const cy = (output[o + 1]! + gy) * s;
        const bw = Math.exp(output[o + 2]!) * s;
        const bh = Math.exp(output[o + 3]!) * s;
        out.push({
          x1: clamp((cx - bw / 2) / scale, 0, frameW),
          y1: clamp((cy - bh / 2) / scale, 0, frameH),
          x2: clamp((cx + bw / 2) / scale, 0, frameW),
          y2: clamp((cy + bh / 2) / scale, 0, frameH),
          score,
        });
      }
    }
  }
  if (a * CHANNELS !== output.length) throw new Error(`YOLOX output has ${output.length / CHANNELS} anchors, expected ${a}`);
  return nms(out, 0.45);
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

export function iou(a: Detection, b: Detection): number {
  const iw = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const ih = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

/** Greedy non-maximum suppression, highest score first. */
export function nms(dets: Detection[], threshold: number): Detection[] {
  const sorted = [...dets].sort((p, q) => q.score - p.score);
  const keep: Detection[] = [];
  for (const d of sorted) {
    if (d.x2 - d.x1 <= 0 || d.y2 - d.y1 <= 0) continue;
    if (keep.every((k) => iou(k, d) <= threshold)) keep.push(d);
  }
  return keep;
}

/**
 * YOLOX-nano person detector over the registry's model, whose sessions live in the inference
 * pool's worker threads (one per worker; a run goes to whichever is free, the input buffer is
 * transferred there, not copied). Camera
 * frames arrive already scaled into the input box by ffmpeg; anything larger (an
 * uploaded image, a bench frame) is resized with sharp first.
 */
export class YoloxPersonDetector {
  readonly inputSize: number;
  private readonly inputName: string;
  private readonly outputName: string;

  constructor(private readonly model: LoadedModel) {
    const shape = model.entry.inputs[0]?.shape ?? [];
    this.inputSize = Number(shape[2] ?? 416);
    this.inputName = model.entry.inputs[0]?.name ?? 'images';
    this.outputName = model.runner.outputNames[0] ?? 'output';
  }

  /** Detections with score >= minScore (the tracker also wants the low ones). */
  async detect(frame: RgbFrame, minScore: number): Promise<Detection[]> {
    const size = this.inputSize;
    let input = frame;
    let scale = 1;
    if (frame.width > size || frame.height > size) {
      scale = Math.min(size / frame.width, size / frame.height);
      const w = Math.max(1, Math.round(frame.width * scale));
      const h = Math.max(1, Math.round(frame.height * scale));
      const data = await sharp(frame.data, { raw: { width: frame.width, height: frame.height, channels: 3 } })
        .resize(w, h, { fit: 'fill' })
        .raw()
        .toBuffer();
      input = { data, width: w, height: h };
      scale = Math.min(w / frame.width, h / frame.height);
    }
    const buf = new Float32Array(3 * size * size);
    fillLetterbox(input, size, buf);
    const result = await this.model.runner.run([floatFeed(this.inputName, buf, [1, 3, size, size])]);
    const out = result[this.outputName];
    if (!out) throw new Error(`YOLOX session returned no ${this.outputName}`);
    return decodePersons(out.data as Float32Array, size, scale, frame.width, frame.height, minScore);
  }
}
