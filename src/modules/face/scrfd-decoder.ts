import type { TensorData } from '../../runtime/inference-worker.js';
import type { RawFace, Point } from './face-geometry.js';
import type { TensorLayout } from './detector-input.js';

/** SCRFD (insightface det_500m / det_2.5g): RGB, (x - 127.5) / 128. */
export const SCRFD_LAYOUT: TensorLayout = { order: 'rgb', mean: 127.5, std: 128 };

const STRIDES = [8, 16, 32] as const;
const ANCHORS_PER_CELL = 2;

/**
 * Decodes SCRFD's nine outputs, taken BY ORDER (the 500m and 2.5g exports name them
 * differently): scores s8,s16,s32, then boxes, then keypoints. Anchor centres are
 * (x*stride, y*stride), two anchors per cell; distances are in stride units.
 * Returns faces in original-image coordinates (divided by `scale`), before NMS.
 */
export function decodeScrfd(outputs: TensorData, outputNames: readonly string[], inputWidth: number, inputHeight: number, scale: number, thresh: number): RawFace[] {
  if (outputNames.length !== 9) throw new Error(`SCRFD export with ${outputNames.length} outputs; expected 9 (bn+kps)`);
  const faces: RawFace[] = [];
  STRIDES.forEach((s, i) => {
    const scores = outputs[outputNames[i]!]!.data as Float32Array;
    const boxes = outputs[outputNames[i + 3]!]!.data as Float32Array;
    const kps = outputs[outputNames[i + 6]!]!.data as Float32Array;
    const cols = Math.ceil(inputWidth / s);
    const rows = Math.ceil(inputHeight / s);
    const n = Math.min(scores.length, rows * cols * ANCHORS_PER_CELL);
    for (let a = 0; a < n; a++) {
      const score = scores[a]!;
      if (score < thresh) continue;
      const cell = Math.floor(a / ANCHORS_PER_CELL);
      const cx = (cell % cols) * s;
      const cy = Math.floor(cell / cols) * s;
      const b = a * 4;
      const box: [number, number, number, number] = [(cx - boxes[b]! * s) / scale, (cy - boxes[b + 1]! * s) / scale, (cx + boxes[b + 2]! * s) / scale, (cy + boxes[b + 3]! * s) / scale];
      const k = a * 10;
      const points: Point[] = [];
      for (let j = 0; j < 5; j++) points.push([(cx + kps[k + 2 * j]! * s) / scale, (cy + kps[k + 2 * j + 1]! * s) / scale]);
      faces.push({ box, score, kps: points });
    }
  });
  return faces;
}
