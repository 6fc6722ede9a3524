import { floatFeed, type WorkerModel } from '../../runtime/inference-worker.js';
import type { RgbImage } from '../../core/image-decode.js';
import { orderQuad, quadSize, type Quad } from './geometry.js';
import { cropWidth, type CropOptions, type LineImage } from './line-crop.js';
import type { TextBox } from './text-detector.js';

/** Clockwise quarter turns that make a page upright. */
export type QuarterTurns = 0 | 1 | 2 | 3;

/** Where a point of the original image lands after `turns` clockwise quarter turns. */
export function rotatePoint(p: { x: number; y: number }, turns: QuarterTurns, width: number, height: number): { x: number; y: number } {
  switch (turns) {
    case 0:
      return p;
    case 1:
      return { x: height - 1 - p.y, y: p.x };
    case 2:
      return { x: width - 1 - p.x, y: height - 1 - p.y };
    case 3:
      return { x: p.y, y: width - 1 - p.x };
  }
}

/** The inverse of rotatePoint (back to the uploaded image's coordinates). */
export function unrotatePoint(p: { x: number; y: number }, turns: QuarterTurns, width: number, height: number): { x: number; y: number } {
  // width/height are those of the ORIGINAL image.
  switch (turns) {
    case 0:
      return p;
    case 1:
      return { x: p.y, y: height - 1 - p.x };
    case 2:
      return { x: width - 1 - p.x, y: height - 1 - p.y };
    case 3:
      return { x: width - 1 - p.y, y: p.x };
  }
}

export function rotateQuad(q: Quad, turns: QuarterTurns, width: number, height: number): Quad {
  return orderQuad(q.map((p) => rotatePoint(p, turns, width, height)));
}

/**
 * Whether the page's text runs vertically: the summed length of tall boxes
 * against that of wide boxes (a page turned 90 or 270 degrees).
 */
export function textIsVertical(boxes: TextBox[]): boolean {
  let vertical = 0;
  let horizontal = 0;
  for (const b of boxes) {
    // orderQuad sorts corners by x, so a vertical line's "width" is its short side.
    const xs = b.quad.map((p) => p.x);
    const ys = b.quad.map((p) => p.y);
    const w = Math.max(...xs) - Math.min(...xs);
    const h = Math.max(...ys) - Math.min(...ys);
    if (h > 2 * w) vertical += h;
    else if (w > 2 * h) horizontal += w;
  }
  return vertical > horizontal;
}

/** The longest boxes, which carry the most evidence about orientation. */
export function longestBoxes(boxes: TextBox[], n: number): TextBox[] {
  return [...boxes].sort((a, b) => quadSize(b.quad).width - quadSize(a.quad).width).slice(0, n);
}

const CLS_W = 192;
const CLS_H = 48;

/**
 * How a line is cut for the direction classifier: at its height, and no wider than its
 * input, which squeezes a wider line into 192 columns anyway. A page's longest lines are
 * 1,000 to 2,000 pixels wide at height 48: cut whole, five of them cost the main thread a
 * perspective warp ten times the size of what the classifier looks at.
 */
export function clsCropOptions(quad: Quad): CropOptions {
  const natural = cropWidth(quad, { height: CLS_H });
  return { height: CLS_H, stretch: Math.min(1, CLS_W / natural) };
}

/**
 * PaddleOCR's 0/180 direction classifier over a few line crops; returns the
 * probability-weighted vote that the lines are upside down (0..1).
 */
export async function upsideDownVote(model: WorkerModel, crops: LineImage[]): Promise<number> {
  if (crops.length === 0) return 0;
  const plane = CLS_H * CLS_W;
  const input = new Float32Array(crops.length * 3 * plane);
  crops.forEach((c, b) => {
    const w = Math.min(c.width, CLS_W);
    const off = b * 3 * plane;
    for (let y = 0; y < CLS_H; y++) {
      for (let x = 0; x < w; x++) {
        // Crops are at height 48 and cut no wider than 192 (clsCropOptions); a wider one is squeezed by nearest sampling.
        const sx = c.width > CLS_W ? Math.floor((x * c.width) / CLS_W) : x;
        const p = (y * c.width + sx) * 3;
        const q = y * CLS_W + x;
        input[off + q] = c.data[p + 2]! / 127.5 - 1;
        input[off + plane + q] = c.data[p + 1]! / 127.5 - 1;
        input[off + 2 * plane + q] = c.data[p]! / 127.5 - 1;
      }
    }
  });
  const out = await model.run([floatFeed(model.inputNames[0]!, input, [crops.length, 3, CLS_H, CLS_W])]);
  const probs = out[model.outputNames[0]!]!.data as Float32Array;
  let up = 0;
  for (let b = 0; b < crops.length; b++) up += probs[b * 2 + 1]!;
  return up / crops.length;
}

export function imageSizeAfter(img: RgbImage, turns: QuarterTurns): { width: number; height: number } {
  return turns % 2 === 1 ? { width: img.height, height: img.width } : { width: img.width, height: img.height };
}
