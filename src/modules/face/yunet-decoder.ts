import type { TensorData } from '../../runtime/inference-worker.js';
import type { RawFace, Point } from './face-geometry.js';
import type { TensorLayout } from './detector-input.js';

/** YuNet (libfacedetection.train yunet_n): BGR, raw 0..255 (mean 0, std 1). */
export const YUNET_LAYOUT: TensorLayout = { order: 'bgr', mean: 0, std: 1 };

const STRIDES = [8, 16, 32] as const;

function output(outputs: TensorData, name: string): Float32Array {
  const t = outputs[name];
  if (!t) throw new Error(`YuNet output ${name} missing`);
  return t.data as Float32Array;
}

/**
 * Decodes YuNet's per-stride cls/obj/bbox/kps outputs (named cls_8 ... kps_32), one
 * prediction per cell, anchor-free: centre (col + b0, row + b1) * s, size exp(b2..3) * s.
 * The score is sqrt(cls * obj) as OpenCV's FaceDetectorYN computes it.
 */
export function decodeYunet(outputs: TensorData, inputWidth: number, inputHeight: number, scale: number, thresh: number): RawFace[] {
  const faces: RawFace[] = [];
  for (const s of STRIDES) {
    const cls = output(outputs, `cls_${s}`);
    const obj = output(outputs, `obj_${s}`);
    const bbox = output(outputs, `bbox_${s}`);
    const kps = output(outputs, `kps_${s}`);
    const cols = Math.floor(inputWidth / s);
    const rows = Math.floor(inputHeight / s);
    const n = Math.min(cls.length, rows * cols);
    for (let i = 0; i < n; i++) {
      const c = Math.min(1, Math.max(0, cls[i]!));
      const o = Math.min(1, Math.max(0, obj[i]!));
      const score = Math.sqrt(c * o);
      if (score < thresh) continue;
      const col = i % cols;
      const row = Math.floor(i / cols);
      const b = i * 4;
      const cx = (col + bbox[b]!) * s;
      const cy = (row + bbox[b + 1]!) * s;
      const w = Math.exp(bbox[b + 2]!) * s;
      const h = Math.exp(bbox[b + 3]!) * s;
      const k = i * 10;
      const points: Point[] = [];
      for (let j = 0; j < 5; j++) points.push([((kps[k + 2 * j]! + col) * s) / scale, ((kps[k + 2 * j + 1]! + row) * s) / scale]);
      faces.push({ box: [(cx - w / 2) / scale, (cy - h / 2) / scale, (cx + w / 2) / scale, (cy + h / 2) / scale], score, kps: points });
    }
  }
  return faces;
}
