import type { RgbImage } from '../../core/image-decode.js';
import { fillImageTensor, imageFeedSize, type ImageFeed } from '../../runtime/image-feed.js';
import type { WorkerModel } from '../../runtime/inference-worker.js';
import { FaceLandmarker } from '../liveness/face-landmarker.js';
import { MIN_PRESENCE } from '../liveness/face-measurer.js';
import type { TensorLayout } from './detector-input.js';
import { dlibChipTemplate, dlibPointsFromMesh } from './dlib-chip.js';
import { liftDescriptor } from './dlib-metric.js';
import { alignFaceTo, ALIGNED_SIZE, ARCFACE_TEMPLATE, DLIB_CHIP_SIZE, DLIB_CHIP_TEMPLATE } from './face-align.js';
import type { Point, RawFace } from './face-geometry.js';

/**
 * Per-recognizer input layout (models/MANIFEST.json). The channel order is the one that
 * separates the shared identities better in bench/eval-face.ts (it prints both): RGB for
 * MobileFaceNet (as Zaru feeds it), BGR for the Faceplugin model (impostor std 0.092 vs
 * 0.095, genuine pairs above the calibrated 0.4: 95.7% vs 94.7%).
 */
export const RECOGNIZER_LAYOUTS: Record<string, TensorLayout> = {
  face_rec_mobilefacenet_128d: { order: 'rgb', mean: 127.5, std: 127.5 },
  face_rec_faceplugin_512d: { order: 'bgr', mean: 127, std: 128 },
  // The graph subtracts face-api's per-channel means and divides by 255 itself.
  face_rec_dlib_resnet_128d: { order: 'rgb', mean: 0, std: 1 },
};

/**
 * The aligned crop each recognizer was trained on: ArcFace's 112x112 from the detector's five
 * points, or dlib's 150x150 chip fitted on dense landmarks (dlib-chip.ts), with `template` the
 * five-point approximation used when the landmark model finds no face in its crop.
 */
export interface RecognizerCrop {
  template: readonly Point[];
  size: number;
  /** Fit dlib's 32 chip points read off MediaPipe landmarks (RECOGNIZER_LANDMARKS names the model). */
  dense?: true;
}

export const RECOGNIZER_CROPS: Record<string, RecognizerCrop> = {
  face_rec_mobilefacenet_128d: { template: ARCFACE_TEMPLATE, size: ALIGNED_SIZE },
  face_rec_faceplugin_512d: { template: ARCFACE_TEMPLATE, size: ALIGNED_SIZE },
  face_rec_dlib_resnet_128d: { template: DLIB_CHIP_TEMPLATE, size: DLIB_CHIP_SIZE, dense: true },
};

const DLIB_DENSE_TEMPLATE = dlibChipTemplate(DLIB_CHIP_SIZE);

/**
 * How a recognizer's output becomes the unit embedding that galleries store and compare by dot
 * product, and the name of that embedding space. Samples are tagged with the name, so samples
 * made in another space (another recognizer, or dlib before its lift) are reported stale and
 * re-enrolled rather than compared across spaces.
 */
export interface EmbeddingSpace {
  name: string;
  toUnit: (raw: Float32Array) => Float32Array;
  /** dlib-metric.ts's lift (invertible: unliftDescriptor gives the raw descriptor back). */
  lifted?: true;
}

export const EMBEDDING_SPACES: Record<string, EmbeddingSpace> = {
  face_rec_mobilefacenet_128d: { name: 'face_rec_mobilefacenet_128d', toUnit: (v) => l2normalize(v) },
  face_rec_faceplugin_512d: { name: 'face_rec_faceplugin_512d', toUnit: (v) => l2normalize(v) },
  // dlib's descriptors are compared by Euclidean distance, as dlib trained them (dlib-metric.ts).
  face_rec_dlib_resnet_128d: { name: 'face_rec_dlib_resnet_128d+euclidean-lift', toUnit: (v) => liftDescriptor(v), lifted: true },
};

/**
 * A face crop as a model's image input: its bytes go to the inference worker, which fills the
 * float tensor there (image-feed.ts) rather than on the event loop between the detector's answer
 * and the face's model runs.
 */
export function cropFeed(name: string, img: RgbImage, layout: TensorLayout): ImageFeed {
  return { name, rgb: img.data, width: img.width, height: img.height, dims: [1, 3, img.height, img.width], offsetX: 0, offsetY: 0, ...layout };
}

/** NCHW float32 tensor data of an RGB image under a layout (the worker's fill, here). */
export function imageTensorData(img: RgbImage, layout: TensorLayout): Float32Array {
  const feed = cropFeed('input', img, layout);
  return fillImageTensor(feed, new Float32Array(imageFeedSize(feed)));
}

export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}

/** Cosine similarity of two L2-normalised embeddings (their dot product), in [-1, 1]. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`embedding sizes differ: ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return Math.max(-1, Math.min(1, s));
}

/** Embeds aligned faces with one recognizer session. */
export class FaceRecognizer {
  readonly layout: TensorLayout;
  readonly crop: RecognizerCrop;
  readonly space: EmbeddingSpace;
  private readonly landmarker: FaceLandmarker | null;

  /** `landmarks`: the dense landmark model (RECOGNIZER_LANDMARKS) for a recognizer whose crop needs it. */
  constructor(
    private readonly model: WorkerModel,
    readonly name: string,
    opts: { layout?: TensorLayout; landmarks?: WorkerModel } = {},
  ) {
    const l = opts.layout ?? RECOGNIZER_LAYOUTS[name];
    const crop = RECOGNIZER_CROPS[name];
    const space = EMBEDDING_SPACES[name];
    if (!l || !crop || !space) throw new Error(`no input layout known for recognizer ${name}`);
    if (crop.dense && !opts.landmarks) throw new Error(`recognizer ${name} is aligned on dense landmarks: pass the landmark model`);
    this.layout = l;
    this.crop = crop;
    this.space = space;
    // [0, 1] input, as the liveness module feeds the same model.
    this.landmarker = crop.dense && opts.landmarks ? new FaceLandmarker(opts.landmarks, 'unit') : null;
  }

  /** True when the recognizer takes the 112x112 ArcFace crop quality is measured on. */
  get usesArcfaceCrop(): boolean {
    return this.crop.template === ARCFACE_TEMPLATE;
  }

  /** The recognizer's own aligned crop of a face (runs the landmark model in the pool when the crop needs it). */
  async align(img: RgbImage, face: RawFace): Promise<RgbImage> {
    if (this.landmarker) {
      const lm = await this.landmarker.run(img, { bbox: face.box, landmarks: face.kps });
      // The model's own face-presence head: below it, its points are not on a face.
      if (lm.presence >= MIN_PRESENCE) return alignFaceTo(img, dlibPointsFromMesh(lm.image), DLIB_DENSE_TEMPLATE, this.crop.size);
    }
    return alignFaceTo(img, face.kps, this.crop.template, this.crop.size);
  }

  async embed(aligned: RgbImage): Promise<Float32Array> {
    const m = this.model;
    // Copied, not handed over: quality reads the same aligned crop.
    const out = await m.runImage(cropFeed(m.inputNames[0]!, aligned, this.layout), false);
    return this.space.toUnit(out[m.outputNames[0]!]!.data as Float32Array);
  }
}
