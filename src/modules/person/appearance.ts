import type { Detection, RgbFrame } from './yolox-detector.js';

/**
 * A person's colours, cheap enough to compute for every detection on every frame: the
 * upper body and the legs, each a histogram of 16 hues x 2 saturations plus 8 greys (dark
 * to light, for black, grey and white clothes) over a sampled grid of pixels in the middle
 * of the box. What it is for: telling apart the two or three people near the spot where a
 * track was lost, not recognising anyone. Clothes differ from person to person far more
 * often than they match, and a colour histogram of a box is unchanged by the box's size
 * and by walking (unlike its outline).
 */
export type Appearance = Float32Array;

const HUES = 16;
const SATS = 2;
const GREYS = 8;
/** Bins of one body part. */
export const PART_BINS = HUES * SATS + GREYS;
export const APPEARANCE_LENGTH = 2 * PART_BINS;
/** At most this many samples across and down each part: the cost per box is bounded whatever its size. */
const GRID_X = 12;
const GRID_Y = 16;
/** Boxes shorter than this (pixels of the delivered frame) carry too few pixels to describe. */
const MIN_HEIGHT = 16;
/**
 * The parts: the middle half of the box's width (the background shows beside the body),
 * the torso from below the head to the hips, the legs from the hips to above the feet.
 */
const X_INSET = 0.25;
const PARTS: readonly [number, number][] = [
  [0.15, 0.5],
  [0.5, 0.85],
];

function binOf(r: number, g: number, b: number): number {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const sat = max === 0 ? 0 : (max - min) / max;
  // Dark or colourless: a grey by lightness (hue is noise there).
  if (max < 50 || sat < 0.2) return HUES * SATS + Math.min(GREYS - 1, Math.floor((max * GREYS) / 256));
  let hue: number;
  const d = max - min;
  if (max === r) hue = ((g - b) / d + 6) % 6;
  else if (max === g) hue = (b - r) / d + 2;
  else hue = (r - g) / d + 4;
  const h = Math.min(HUES - 1, Math.floor((hue / 6) * HUES));
  return h * SATS + Math.min(SATS - 1, Math.floor(((sat - 0.2) / 0.8) * SATS));
}

/**
 * The appearance of the person in `box` (frame pixels), or null when the box is too small.
 * Each part's histogram sums to 1.
 */
export function appearanceOf(frame: RgbFrame, box: { x1: number; y1: number; x2: number; y2: number }): Appearance | null {
  const { width, height, data } = frame;
  const x1 = Math.max(0, box.x1);
  const x2 = Math.min(width, box.x2);
  const y1 = Math.max(0, box.y1);
  const y2 = Math.min(height, box.y2);
  const w = x2 - x1;
  const h = box.y2 - box.y1;
  if (h < MIN_HEIGHT || w < 4 || y2 - y1 < MIN_HEIGHT / 2) return null;
  const out = new Float32Array(APPEARANCE_LENGTH);
  const xa = x1 + w * X_INSET;
  const xb = x2 - w * X_INSET;
  for (let p = 0; p < PARTS.length; p++) {
    const [from, to] = PARTS[p]!;
    const ya = Math.max(y1, box.y1 + h * from);
    const yb = Math.min(y2, box.y1 + h * to);
    let n = 0;
    if (yb - ya >= 1) {
      for (let gy = 0; gy < GRID_Y; gy++) {
        const y = Math.min(height - 1, Math.floor(ya + ((gy + 0.5) * (yb - ya)) / GRID_Y));
        for (let gx = 0; gx < GRID_X; gx++) {
          const x = Math.min(width - 1, Math.floor(xa + ((gx + 0.5) * (xb - xa)) / GRID_X));
          const i = (y * width + x) * 3;
          out[p * PART_BINS + binOf(data[i]!, data[i + 1]!, data[i + 2]!)]! += 1;
          n++;
        }
      }
    }
    // A part cut off by the frame's edge says nothing: spread evenly, it matches anything half-way.
    for (let k = 0; k < PART_BINS; k++) out[p * PART_BINS + k] = n > 0 ? out[p * PART_BINS + k]! / n : 1 / PART_BINS;
  }
  return out;
}

/**
 * How alike two appearances are: the Bhattacharyya coefficient of each part's
 * histograms, averaged over the parts (1: the same colours, 0: none in common).
 */
export function appearanceSimilarity(a: Appearance, b: Appearance): number {
  let s = 0;
  for (let k = 0; k < APPEARANCE_LENGTH; k++) s += Math.sqrt(a[k]! * b[k]!);
  return s / 2;
}

/** A running appearance moved `rate` of the way towards a new observation (in place). */
export function blendAppearance(into: Appearance, obs: Appearance, rate: number): void {
  for (let k = 0; k < APPEARANCE_LENGTH; k++) into[k] = into[k]! * (1 - rate) + obs[k]! * rate;
}

/**
 * Each detection's appearance, or null where it is too small or mostly hidden: a box more
 * than `maxHidden` covered by another box whose bottom is lower in the picture (a person
 * nearer the camera, in front) shows that person's colours as much as its own.
 */
export function describeDetections(frame: RgbFrame, dets: readonly Detection[], minScore: number, maxHidden = 0.3): (Appearance | null)[] {
  return dets.map((d, i) => {
    if (d.score < minScore) return null;
    const area = (d.x2 - d.x1) * (d.y2 - d.y1);
    for (let j = 0; j < dets.length; j++) {
      const o = dets[j]!;
      if (j === i || o.y2 <= d.y2 || o.score < minScore) continue;
      const iw = Math.min(d.x2, o.x2) - Math.max(d.x1, o.x1);
      const ih = Math.min(d.y2, o.y2) - Math.max(d.y1, o.y1);
      if (iw > 0 && ih > 0 && iw * ih > maxHidden * area) return null;
    }
    return appearanceOf(frame, d);
  });
}
