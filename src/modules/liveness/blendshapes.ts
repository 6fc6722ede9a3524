import { floatFeed, type WorkerModel } from '../../runtime/inference-worker.js';

/** MediaPipe kLandmarksSubsetIdxs (face_blendshapes_graph.cc): the 146 of 478 points the model reads. */
export const BLENDSHAPE_SUBSET = [
  0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39, 40, 46, 52, 53, 54, 55, 58, 61, 63, 65, 66, 67, 70, 78, 80, 81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133, 136, 144, 145,
  146, 148, 149, 150, 152, 153, 154, 155, 157, 158, 159, 160, 161, 162, 163, 168, 172, 173, 176, 178, 181, 185, 191, 195, 197, 234, 246, 249, 251, 263, 267, 269, 270, 276, 282, 283, 284, 285, 288,
  291, 293, 295, 296, 297, 300, 308, 310, 311, 312, 314, 317, 318, 321, 323, 324, 332, 334, 336, 338, 356, 361, 362, 365, 373, 374, 375, 377, 378, 379, 380, 381, 382, 384, 385, 386, 387, 388, 389,
  390, 397, 398, 400, 402, 405, 409, 415, 454, 466, 468, 469, 470, 471, 472, 473, 474, 475, 476, 477,
];

/** Output indices of the scores the challenges read (ARKit names; "Left" is the subject's left). */
export const BLENDSHAPE_INDEX = {
  eyeBlinkLeft: 9,
  eyeBlinkRight: 10,
  jawOpen: 25,
  mouthSmileLeft: 44,
  mouthSmileRight: 45,
} as const;

export type Blendshapes = Record<keyof typeof BLENDSHAPE_INDEX, number>;

/** MediaPipe's 52-score expression model, fed the landmarks in image pixel units as upstream does. */
export class BlendshapeModel {
  constructor(private readonly model: WorkerModel) {}

  async run(imagePoints: Float32Array): Promise<Blendshapes> {
    const input = new Float32Array(BLENDSHAPE_SUBSET.length * 2);
    BLENDSHAPE_SUBSET.forEach((idx, i) => {
      input[i * 2] = imagePoints[idx * 2]!;
      input[i * 2 + 1] = imagePoints[idx * 2 + 1]!;
    });
    const out = await this.model.run([floatFeed(this.model.inputNames[0]!, input, [1, BLENDSHAPE_SUBSET.length, 2])]);
    const scores = out[this.model.outputNames[0]!]!.data as Float32Array;
    const pick = (i: number) => scores[i] ?? 0;
    return {
      eyeBlinkLeft: pick(BLENDSHAPE_INDEX.eyeBlinkLeft),
      eyeBlinkRight: pick(BLENDSHAPE_INDEX.eyeBlinkRight),
      jawOpen: pick(BLENDSHAPE_INDEX.jawOpen),
      mouthSmileLeft: pick(BLENDSHAPE_INDEX.mouthSmileLeft),
      mouthSmileRight: pick(BLENDSHAPE_INDEX.mouthSmileRight),
    };
  }
}
