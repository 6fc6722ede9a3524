import sharp from 'sharp';
import type { ImageFeed } from '../../runtime/image-feed.js';
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
 * The YOLOX input the MANIFEST prescribes for an RGB frame that already fits in inW x inH:
 * pasted top-left on a canvas of 114, BGR, raw 0..255, NCHW. The bytes go to the inference
 * worker, which fills the floats into a buffer it keeps (image-feed.ts): a frame's 1.2 MB of
 * floats is neither allocated on the main thread nor copied across for every frame of every
 * camera.
 */
export function letterboxFeed(frame: RgbFrame, inW: number, inH: number, name: string): ImageFeed {
  const { width: w, height: h, data } = frame;
  if (w > inW || h > inH) throw new Error(`frame ${w}x${h} does not fit the ${inW}x${inH} detector input`);
  if (data.length !== w * h * 3) throw new Error(`frame of ${data.length} bytes for ${w}x${h} RGB`);
  return { name, rgb: data, width: w, height: h, dims: [1, 3, inH, inW], offsetX: 0, offsetY: 0, order: 'bgr', mean: 0, std: 1, padByte: PAD };
}

/**
 * Decodes YOLOX's raw head output [1, N, 85] (grids of strides 8/16/32, row-major,
 * sigmoid already applied in the graph; inW x inH the input's size) into person boxes at or above minScore,
 * divided by the letterbox scale and clipped to the frame.
 */
export function decodePersons(output: Float32Array, inW: number, inH: number, scale: number, frameW: number, frameH: number, minScore: number): Detection[] {
  const out: Detection[] = [];
  let a = 0;
  for (const s of STRIDES) {
    for (let gy = 0; gy < inH / s; gy++) {
      for (let gx = 0; gx < inW / s; gx++, a++) {
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

/** YOLOX's largest stride: its input sides must be multiples of it. */
export const YOLOX_STRIDE = 32;

/**
 * YOLOX-nano person detector over the registry's model, whose sessions live in the inference
 * pool's worker threads (one per worker; a run goes to whichever is free, the input buffer is
 * transferred there, not copied). Camera frames arrive already scaled by ffmpeg into the
 * `inputSize` box; anything larger (an uploaded image, a bench frame) is resized with sharp first.
 *
 * With a fixed-shape model (the MANIFEST's 416x416) every frame is letterboxed into the square.
 * When the session's model has free spatial dims (freeSpatialInputDims, runtime/free-input-dims.ts; the network is fully
 * convolutional), the input is shaped to the frame instead: its sides rounded up to a
 * multiple of 32, so a 16:9 frame scaled to a 416 long side runs on 416x256, not 416x416,
 * and `inputSize` (the long side) may differ from the file's 416.
 */
export class YoloxPersonDetector {
  readonly inputSize: number;
  /** Whether the input follows the frame's shape (free spatial dims) or is the model's fixed square. */
  readonly shapedToFrame: boolean;
  private readonly inputName: string;
  private readonly outputName: string;

  /** `shaped`: the session was opened on the model with free spatial dims (freeSpatialInputDims); its frames' long side. */
  constructor(
    private readonly model: LoadedModel,
    shaped?: { longSide: number },
  ) {
    this.shapedToFrame = shaped !== undefined;
    this.inputSize = shaped ? shaped.longSide : Number(model.entry.inputs[0]?.shape[2] ?? 416);
    if (this.inputSize % YOLOX_STRIDE !== 0) throw new Error(`YOLOX input ${this.inputSize} is not a multiple of ${YOLOX_STRIDE}`);
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
    const inW = this.shapedToFrame ? roundUp(input.width) : size;
    const inH = this.shapedToFrame ? roundUp(input.height) : size;
    const result = await this.model.runner.runImage(letterboxFeed(input, inW, inH, this.inputName));
    const out = result[this.outputName];
    if (!out) throw new Error(`YOLOX session returned no ${this.outputName}`);
    return decodePersons(out.data as Float32Array, inW, inH, scale, frame.width, frame.height, minScore);
  }
}

function roundUp(v: number): number {
  return Math.ceil(v / YOLOX_STRIDE) * YOLOX_STRIDE;
}
