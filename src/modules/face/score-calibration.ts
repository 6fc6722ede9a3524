/**
 * Maps a recognizer's raw cosine similarity onto the spec's threshold scale, where
 * 0.3 / 0.4 / 0.5 / 0.6 mean a false-accept rate of about 1e-4 / 1e-6 / 1e-8 / 1e-10.
 *
 * The raw scale of these recognizers is not ArcFace's, so the table cannot be applied to
 * raw cosines. Instead the impostor score distribution of each recognizer is measured on
 * the shared identities (bench/eval-face.ts prints the fit) and modelled as a Gaussian
 * N(mean, std); the raw score whose Gaussian tail probability is the table's FAR is mapped
 * to that table threshold, with piecewise-linear interpolation in between. The map is
 * strictly increasing and stays in [0, 1]: raw -1 -> 0, raw 1 -> 1.
 *
 * Honest limits: ~1,400 impostor pairs measure FARs down to ~1e-3 at best; the 1e-6..1e-10
 * points are extrapolations of the fitted tail, not measurements (docs/accuracy.md).
 */
export interface ImpostorFit {
  /** Mean and standard deviation of raw impostor cosines. */
  mean: number;
  std: number;
  /** What the fit was measured on, for /docs and docs/face.md. */
  measured_on: string;
}

/** The spec's table as (one-sided Gaussian z for the FAR, calibrated threshold). */
export const FAR_TABLE: readonly { far: number; z: number; threshold: number }[] = [
  { far: 1e-4, z: 3.719016, threshold: 0.3 },
  { far: 1e-6, z: 4.753424, threshold: 0.4 },
  { far: 1e-8, z: 5.612001, threshold: 0.5 },
  { far: 1e-10, z: 6.361341, threshold: 0.6 },
];

/** Fits measured by `node --import tsx bench/eval-face.ts` (SCRFD-500m + 5-point alignment). */
export const IMPOSTOR_FITS: Record<string, ImpostorFit> = {
  face_rec_mobilefacenet_128d: { mean: 0.0116, std: 0.1007, measured_on: '1391 impostor pairs of the 55 shared identity photos (14 people)' },
  face_rec_faceplugin_512d: { mean: 0.0015, std: 0.0921, measured_on: '1391 impostor pairs of the 55 shared identity photos (14 people)' },
};

/** Below the first table point, the curve follows the table's first slope down to 0.01, then flattens to 0 at raw -1. */
const FLOOR = 0.01;

export class ScoreCalibration {
  /** Knots (raw, calibrated), strictly increasing in both. */
  readonly knots: [number, number][];

  constructor(readonly fit: ImpostorFit) {
    const { mean, std } = fit;
    const raw = (z: number) => mean + z * std;
    const first = FAR_TABLE[0]!;
    const second = FAR_TABLE[1]!;
    const slope = (second.threshold - first.threshold) / (second.z - first.z);
    const zFloor = first.z - (first.threshold - FLOOR) / slope;
    const knots: [number, number][] = [[-1, 0]];
    if (raw(zFloor) > -1) knots.push([raw(zFloor), FLOOR]);
    for (const row of FAR_TABLE) knots.push([raw(row.z), row.threshold]);
    knots.push([1, 1]);
    for (let i = 1; i < knots.length; i++) {
      if (!(knots[i]![0] > knots[i - 1]![0])) throw new Error(`impostor fit ${JSON.stringify(fit)} does not give an increasing calibration`);
    }
    this.knots = knots;
  }

  /** Calibrated similarity in [0, 1] for a raw cosine in [-1, 1]. */
  calibrate(rawCosine: number): number {
    const x = Math.max(-1, Math.min(1, rawCosine));
    const k = this.knots;
    for (let i = 1; i < k.length; i++) {
      const [x1, y1] = k[i]!;
      if (x <= x1) {
        const [x0, y0] = k[i - 1]!;
        return y0 + ((x - x0) / (x1 - x0)) * (y1 - y0);
      }
    }
    return 1;
  }

  /** The raw cosine a calibrated threshold corresponds to (inverse map). */
  rawFor(calibrated: number): number {
    const y = Math.max(0, Math.min(1, calibrated));
    const k = this.knots;
    for (let i = 1; i < k.length; i++) {
      const [x1, y1] = k[i]!;
      if (y <= y1) {
        const [x0, y0] = k[i - 1]!;
        return x0 + ((y - y0) / (y1 - y0)) * (x1 - x0);
      }
    }
    return 1;
  }
}

export function calibrationFor(recognizer: string): ScoreCalibration {
  const fit = IMPOSTOR_FITS[recognizer];
  if (!fit) throw new Error(`no score calibration measured for recognizer ${recognizer}`);
  return new ScoreCalibration(fit);
}
