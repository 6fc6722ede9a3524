import type { RgbImage } from '../../core/image-decode.js';
import type { WorkerModel } from '../../runtime/inference-worker.js';
import { fromHalf } from './float16.js';
import { cropToImage, roiFromFace, roiTensorF16, type FaceBox, type Roi } from './face-roi.js';

export const LANDMARK_INPUT = 256;
export const LANDMARK_COUNT = 478;
/** MediaPipe's face-detection-to-ROI scale: 1.5x the detector box's longer side. */
export const ROI_SCALE = 1.5;

export interface DenseLandmarks {
  /** 478 x (x, y, z) in the 256-px crop, eye line horizontal (z in the same units as x, negative towards the camera). */
  crop: Float32Array;
  /** 478 x (x, y) in image pixels. */
  image: Float32Array;
  /** Face-presence probability from the model's own head. */
  presence: number;
  roi: Roi;
  /** The model run in the inference pool (including the hand-over to a worker), ms. */
  runMs: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * MediaPipe Face Landmarker v2 (478 points incl. irises) on a face found by the face
 * service, run in the model registry's inference pool (whichever worker is free). The model file has float16 input
 * and outputs (see models/manifest.json): they travel as Uint16Array half bits.
 */
export class FaceLandmarker {
  constructor(
    private readonly model: WorkerModel,
    private readonly range: 'unit' | 'signed' = 'signed',
  ) {}

  async run(img: RgbImage, face: FaceBox): Promise<DenseLandmarks> {
    const roi = roiFromFace(face, ROI_SCALE);
    const input = roiTensorF16(img, roi, LANDMARK_INPUT, this.range);
    const t0 = performance.now();
    const out = await this.model.run([{ name: this.model.inputNames[0]!, type: 'float16', data: input, dims: [1, 3, LANDMARK_INPUT, LANDMARK_INPUT] }]);
    const runMs = performance.now() - t0;
    const names = this.model.outputNames;
    const pts = out[names[0]!]!.data as ArrayLike<number>;
    const presenceRaw = out[names[1]!]!.data as ArrayLike<number>;
    // onnxruntime-node hands float16 back as Uint16Array bit patterns on Node 20.
    const bits = pts instanceof Uint16Array;
    const val = (a: ArrayLike<number>, i: number) => (bits ? fromHalf(a[i]!) : a[i]!);
    const crop = new Float32Array(LANDMARK_COUNT * 3);
    const image = new Float32Array(LANDMARK_COUNT * 2);
    for (let i = 0; i < LANDMARK_COUNT; i++) {
      const x = val(pts, i * 3);
      const y = val(pts, i * 3 + 1);
      crop[i * 3] = x;
      crop[i * 3 + 1] = y;
      crop[i * 3 + 2] = val(pts, i * 3 + 2);
      const [ix, iy] = cropToImage(roi, LANDMARK_INPUT, x, y);
      image[i * 2] = ix;
      image[i * 2 + 1] = iy;
    }
    return { crop, image, presence: sigmoid(val(presenceRaw, 0)), roi, runMs };
  }
}
