import type { Point } from './face-geometry.js';

/**
 * dlib's face chip from dense landmarks: dlib's ResNet recognizer was trained on chips cut by
 * get_face_chip_details(shape, 150, 0.25) from its 68-point shape model, a similarity fit of
 * 32 of those points (nose 27-35, eyes 36-47, upper lip 48-54 and 60-64; not the jaw, the brows
 * or the lower lip) onto dlib's mean face shape. Five detector points (eye centres, nose tip,
 * mouth corners) only approximate that fit, and a detector's points are coarse; MediaPipe's
 * face landmarks (Apache-2.0) give the same 32 points, so the chip is cut as dlib cuts it.
 */

/** dlib's mean face shape (interpolation.h, get_face_chip_details) for points 17-67, in [0, 1]. */
const MEAN_X = [
  0.000213256, 0.0752622, 0.18113, 0.29077, 0.393397, 0.586856, 0.689483, 0.799124, 0.904991, 0.98004, 0.490127, 0.490127, 0.490127, 0.490127, 0.36688, 0.426036, 0.490127, 0.554217, 0.613373,
  0.121737, 0.187122, 0.265825, 0.334606, 0.260918, 0.182743, 0.645647, 0.714428, 0.793132, 0.858516, 0.79751, 0.719335, 0.254149, 0.340985, 0.428858, 0.490127, 0.551395, 0.639268, 0.726104, 0.642159,
  0.556721, 0.490127, 0.423532, 0.338094, 0.290379, 0.428096, 0.490127, 0.552157, 0.689874, 0.553364, 0.490127, 0.42689,
];
const MEAN_Y = [
  0.106454, 0.038915, 0.0187482, 0.0344891, 0.0773906, 0.0773906, 0.0344891, 0.0187482, 0.038915, 0.106454, 0.203352, 0.307009, 0.409805, 0.515625, 0.587326, 0.609345, 0.628106, 0.609345, 0.587326,
  0.216423, 0.178758, 0.179852, 0.231733, 0.245099, 0.244077, 0.231733, 0.179852, 0.178758, 0.216423, 0.244077, 0.245099, 0.780233, 0.745405, 0.727388, 0.742578, 0.727388, 0.745405, 0.780233,
  0.864805, 0.902192, 0.909281, 0.902192, 0.864805, 0.784792, 0.778746, 0.785343, 0.778746, 0.784792, 0.824182, 0.831803, 0.824182,
];

/**
 * The dlib points the chip is fitted on, each with the MediaPipe face-mesh points that sit on
 * it (averaged when two). The correspondence follows both models' published landmark charts
 * (iBUG 68 and the canonical face mesh): eye corners and lids, nose bridge and base, lip line.
 */
export const MESH_FOR_DLIB: ReadonlyArray<readonly [dlib: number, mesh: readonly number[]]> = [
  [27, [168, 6]],
  [28, [197, 195]],
  [29, [5]],
  [30, [4]],
  [31, [75]],
  [32, [97]],
  [33, [2]],
  [34, [326]],
  [35, [305]],
  [36, [33]],
  [37, [160]],
  [38, [158]],
  [39, [133]],
  [40, [153]],
  [41, [144]],
  [42, [362]],
  [43, [385]],
  [44, [387]],
  [45, [263]],
  [46, [373]],
  [47, [380]],
  [48, [61]],
  [49, [39]],
  [50, [37]],
  [51, [0]],
  [52, [267]],
  [53, [269]],
  [54, [291]],
  [60, [78]],
  [61, [82]],
  [62, [13]],
  [63, [312]],
  [64, [308]],
];

export const DLIB_CHIP_PADDING = 0.25;

/** Where get_face_chip_details puts each fitted point in a size x size chip: (padding + m) / (1 + 2 padding) * size. */
export function dlibChipTemplate(size: number, padding = DLIB_CHIP_PADDING): Point[] {
  return MESH_FOR_DLIB.map(([i]) => [((padding + MEAN_X[i - 17]!) / (1 + 2 * padding)) * size, ((padding + MEAN_Y[i - 17]!) / (1 + 2 * padding)) * size]);
}

/** The fitted dlib points read off MediaPipe landmarks in image pixels (x, y pairs, 478 or 468 points). */
export function dlibPointsFromMesh(mesh: ArrayLike<number>): Point[] {
  return MESH_FOR_DLIB.map(([, ms]) => {
    let x = 0,
      y = 0;
    for (const j of ms) {
      x += mesh[j * 2]!;
      y += mesh[j * 2 + 1]!;
    }
    return [x / ms.length, y / ms.length];
  });
}
