// The most confident face (box + 5 landmarks) in an image with SCRFD-500m, decoded as models/manifest.json
// describes, for the demographics evaluation. Written for the bench while the face service was not
// on main yet; the daemon uses the face service's detector.
import ort from 'onnxruntime-node';
import type { RgbImage } from '../../src/core/image-decode.js';

export interface DetectedFace {
  box: [number, number, number, number];
  kps: [number, number][];
  score: number;
}

const STRIDES = [8, 16, 32];

/**
 * Never upscales past the image (the guide's pitfall: a 150x150 crop upscaled to 640 hides the
 * face): the canvas is the image rounded up to a multiple of 32, capped at 640, image top-left.
 */
export async function mostConfidentFace(session: ort.InferenceSession, img: RgbImage, threshold = 0.5): Promise<DetectedFace | undefined> {
  const scale = Math.min(1, 640 / Math.max(img.width, img.height));
  const w = Math.max(32, Math.ceil((img.width * scale) / 32) * 32);
  const h = Math.max(32, Math.ceil((img.height * scale) / 32) * 32);
  const input = new Float32Array(3 * w * h);
  const sw = Math.round(img.width * scale);
  const sh = Math.round(img.height * scale);
  // Nearest-neighbour resize is enough for finding a box at these sizes.
  for (let y = 0; y < sh; y++) {
    const sy = Math.min(img.height - 1, Math.floor(y / scale));
    for (let x = 0; x < sw; x++) {
      const sx = Math.min(img.width - 1, Math.floor(x / scale));
      const p = (sy * img.width + sx) * 3;
      for (let c = 0; c < 3; c++) input[c * w * h + y * w + x] = (img.data[p + c]! - 127.5) / 128;
    }
  }
  const out = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', input, [1, 3, h, w]) });
  const names = session.outputNames;
  let best: DetectedFace | undefined;
  STRIDES.forEach((stride, si) => {
    const scores = out[names[si]!]!.data as Float32Array;
    const boxes = out[names[si + 3]!]!.data as Float32Array;
    const kps = out[names[si + 6]!]!.data as Float32Array;
    const cols = w / stride;
    for (let i = 0; i < scores.length; i++) {
      if (scores[i]! < threshold) continue;
      const cell = Math.floor(i / 2);
      const cx = (cell % cols) * stride;
      const cy = Math.floor(cell / cols) * stride;
      if (best && best.score >= scores[i]!) continue;
      const box: [number, number, number, number] = [
        (cx - boxes[i * 4]! * stride) / scale,
        (cy - boxes[i * 4 + 1]! * stride) / scale,
        (cx + boxes[i * 4 + 2]! * stride) / scale,
        (cy + boxes[i * 4 + 3]! * stride) / scale,
      ];
      const points: [number, number][] = [];
      for (let k = 0; k < 5; k++) points.push([(cx + kps[i * 10 + 2 * k]! * stride) / scale, (cy + kps[i * 10 + 2 * k + 1]! * stride) / scale]);
      best = { box, kps: points, score: scores[i]! };
    }
  });
  return best;
}
