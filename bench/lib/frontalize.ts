/**
 * Face frontalization (Hassner et al., "Effective face frontalization in unconstrained images",
 * CVPR 2015) for dlib's chip, measured by bench/eval-frontalize.ts and not shipped
 * (docs/accuracy.md). Instead of a reference 3-D head it uses the 3-D face mesh the landmark
 * model already gives: the mesh is rotated by the measured yaw to face the camera, the chip is
 * drawn by a piecewise-affine warp over the mesh's Delaunay triangles (each triangle of the
 * frontal mesh reads the pixels its own triangle covers in the photo), and where the photo saw
 * a triangle foreshortened or from behind (self-occluded), it is filled from its mirror image
 * across the face's midline.
 */
import type { RgbImage } from '../../src/core/image-decode.js';
import { dlibPointsFromMesh } from '../../src/modules/face/dlib-chip.js';
import { estimateSimilarity, type Affine } from '../../src/modules/face/face-align.js';
import type { Point } from '../../src/modules/face/face-geometry.js';
import { delaunay } from './delaunay.js';

/** Face-mesh points of the surface (468-477 are the irises). */
const MESH_POINTS = 468;
/** Anchors per chip side, mapped by the face's overall similarity, so the warp covers the whole chip. */
const BORDER_STEPS = 6;

/**
 * How the self-occluded side is filled: `none` keeps the warped pixels; `soft` (Hassner's soft
 * symmetry) blends in the mirror image by how much better the mirror side was seen; `half`
 * replaces the less-seen half by the mirror of the other.
 */
export type MirrorFill = 'none' | 'soft' | 'half';

export interface FrontalInput {
  /** 478 x (x, y, z) in the landmark crop (eye line horizontal, z in x units, growing away from the camera). */
  crop: Float32Array;
  /** 478 x (x, y) in image pixels. */
  image: Float32Array;
}

const apply = (m: Affine, [x, y]: Point): Point => [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]];
const cross = (a: Point, b: Point, c: Point) => (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);

/** The frontal mesh in chip pixels (its dlib points fitted on `template`) and the photo's mesh, plus border anchors. */
function meshes(lm: FrontalInput, yawDeg: number, template: readonly Point[], size: number): { dst: Point[]; src: Point[]; imagePerChip: number } {
  const a = (yawDeg * Math.PI) / 180;
  const ca = Math.cos(a),
    sa = Math.sin(a);
  let cx = 0,
    cz = 0;
  for (let i = 0; i < MESH_POINTS; i++) {
    cx += lm.crop[i * 3]!;
    cz += lm.crop[i * 3 + 2]!;
  }
  cx /= MESH_POINTS;
  cz /= MESH_POINTS;
  // Rotate about the vertical axis by the yaw (liveness/head-pose.ts's cheek-to-cheek angle), so
  // that line has no depth left, then drop z: the mesh as a camera facing it would see it.
  const frontal = new Float32Array(MESH_POINTS * 2);
  for (let i = 0; i < MESH_POINTS; i++) {
    frontal[i * 2] = cx + (lm.crop[i * 3]! - cx) * ca + (lm.crop[i * 3 + 2]! - cz) * sa;
    frontal[i * 2 + 1] = lm.crop[i * 3 + 1]!;
  }
  const toChip = estimateSimilarity(dlibPointsFromMesh(frontal), template);
  const dst: Point[] = [];
  const src: Point[] = [];
  for (let i = 0; i < MESH_POINTS; i++) {
    dst.push(apply(toChip, [frontal[i * 2]!, frontal[i * 2 + 1]!]));
    src.push([lm.image[i * 2]!, lm.image[i * 2 + 1]!]);
  }
  const overall = estimateSimilarity(dst, src);
  for (let k = 0; k <= BORDER_STEPS; k++) {
    const t = -1 + ((size + 1) * k) / BORDER_STEPS;
    for (const p of [
      [t, -1],
      [t, size],
      [-1, t],
      [size, t],
    ] as Point[]) {
      dst.push(p);
      src.push(apply(overall, p));
    }
  }
  return { dst, src, imagePerChip: Math.sqrt(Math.abs(overall[0] * overall[4] - overall[1] * overall[3])) };
}

/**
 * The size x size chip of a face turned by `yawDeg`, drawn as if it faced the camera, its
 * fitted points on `template` (dlib-chip.ts's frontal geometry).
 */
export function frontalChip(img: RgbImage, lm: FrontalInput, yawDeg: number, template: readonly Point[], size: number, mirror: MirrorFill): RgbImage {
  const { dst, src, imagePerChip } = meshes(lm, yawDeg, template, size);
  const { data, width: W, height: H } = img;
  const n = size * size;
  const rgb = new Float32Array(n * 3);
  // Per pixel: how fully the photo shows its triangle (area in the photo over frontal area, 0..1).
  const seen = new Float32Array(n).fill(1);
  // A pixel on an edge shared by two triangles is drawn once.
  const drawn = new Uint8Array(n);
  for (const [i, j, k] of delaunay(dst)) {
    const A = dst[i]!,
      B = dst[j]!,
      C = dst[k]!;
    const area = cross(A, B, C);
    if (area <= 1e-9) continue;
    const onFace = i < MESH_POINTS && j < MESH_POINTS && k < MESH_POINTS;
    const vis = onFace ? Math.max(0, Math.min(1, cross(src[i]!, src[j]!, src[k]!) / (imagePerChip * imagePerChip * area))) : 1;
    // Photo position as an affine function of chip (u, v): barycentric weights are affine in (u, v).
    const [sa, sb, sc] = [src[i]!, src[j]!, src[k]!];
    const wa = (u: number, v: number) => ((C[0] - B[0]) * (v - B[1]) - (C[1] - B[1]) * (u - B[0])) / area;
    const wb = (u: number, v: number) => ((A[0] - C[0]) * (v - C[1]) - (A[1] - C[1]) * (u - C[0])) / area;
    const u0 = Math.max(0, Math.floor(Math.min(A[0], B[0], C[0]))),
      u1 = Math.min(size - 1, Math.ceil(Math.max(A[0], B[0], C[0])));
    const v0 = Math.max(0, Math.floor(Math.min(A[1], B[1], C[1]))),
      v1 = Math.min(size - 1, Math.ceil(Math.max(A[1], B[1], C[1])));
    for (let v = v0; v <= v1; v++) {
      for (let u = u0; u <= u1; u++) {
        const a = wa(u, v),
          b = wb(u, v),
          c = 1 - a - b;
        const o = v * size + u;
        if (a < -1e-6 || b < -1e-6 || c < -1e-6 || drawn[o]) continue;
        drawn[o] = 1;
        const x = a * sa[0] + b * sb[0] + c * sc[0];
        const y = a * sa[1] + b * sb[1] + c * sc[1];
        seen[o] = vis;
        // Bilinear read, black outside the photo.
        const x0 = Math.floor(x),
          y0 = Math.floor(y);
        const fx = x - x0,
          fy = y - y0;
        let r = 0,
          g = 0,
          bl = 0;
        for (let dy = 0; dy < 2; dy++) {
          const yy = y0 + dy;
          if (yy < 0 || yy >= H) continue;
          for (let dx = 0; dx < 2; dx++) {
            const xx = x0 + dx;
            if (xx < 0 || xx >= W) continue;
            const w = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy);
            const p = (yy * W + xx) * 3;
            r += w * data[p]!;
            g += w * data[p + 1]!;
            bl += w * data[p + 2]!;
          }
        }
        rgb[o * 3] = r;
        rgb[o * 3 + 1] = g;
        rgb[o * 3 + 2] = bl;
      }
    }
  }
  return mirrorFill(rgb, seen, size, (2 * template.reduce((s, p) => s + p[0], 0)) / template.length, mirror);
}

/** Fills the occluded side from its mirror image about x = axis2 / 2 (the template's midline). */
function mirrorFill(rgb: Float32Array, seen: Float32Array, size: number, axis2: number, mirror: MirrorFill): RgbImage {
  let leftSeen = 0,
    rightSeen = 0;
  for (let v = 0; v < size; v++)
    for (let u = 0; u < size; u++) {
      if (2 * u < axis2) leftSeen += seen[v * size + u]!;
      else rightSeen += seen[v * size + u]!;
    }
  const hiddenRight = rightSeen < leftSeen;
  const out = Buffer.alloc(size * size * 3);
  for (let v = 0; v < size; v++) {
    for (let u = 0; u < size; u++) {
      const o = v * size + u;
      const mu = Math.round(axis2 - u);
      let w = 0;
      if (mirror !== 'none' && mu >= 0 && mu < size) w = mirror === 'soft' ? Math.max(0, seen[v * size + mu]! - seen[o]!) : 2 * u >= axis2 === hiddenRight ? 1 : 0;
      const m = v * size + Math.max(0, Math.min(size - 1, mu));
      for (let ch = 0; ch < 3; ch++) out[o * 3 + ch] = rgb[o * 3 + ch]! * (1 - w) + rgb[m * 3 + ch]! * w + 0.5;
    }
  }
  return { data: out, width: size, height: size };
}
