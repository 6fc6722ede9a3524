/**
 * Maps a recognizer's raw cosine similarity onto the spec's threshold scale, where
 * 0.3 / 0.4 / 0.5 / 0.6 mean a false-accept rate of about 1e-4 / 1e-6 / 1e-8 / 1e-10.
 *
 * The raw scale of these recognizers is not ArcFace's, so the table cannot be applied to raw
 * cosines. The FAR at a raw score is the share of impostor pairs scoring at least that much, so
 * the calibration rests on the upper tail of the impostor distribution, measured by
 * `node --import tsx bench/eval-far.ts` on every face of the shared images that carries an
 * identity (group photos included).
 *
 * Why a tail model and not a Gaussian over all pairs: impostor cosines have a heavier upper tail
 * than a Gaussian fitted to their bulk. The first calibration did that, and on faces never seen
 * one impostor pair in 1,690 scored above 0.4 (about 6e-4 where the table promises 1e-6). The
 * tail above the top `tail_share` of impostor scores is modelled as exponential (peaks over a
 * threshold u with shape 0): FAR(raw) = tail_share * exp(-(raw - u) / beta). A cosine is bounded
 * by 1, so the true tail is lighter than exponential: the extrapolation errs towards stricter
 * thresholds.
 *
 * What is shipped: for each recognizer, the tail fitted once over all its impostor pairs (every
 * person measured; IMPOSTOR_FITS below). Impostor scores depend on who is compared (look-alikes,
 * photo kinds), so a tail fitted on some people can under-predict the tail of others; the fit is
 * therefore not trusted on its own but checked: bench/eval-far.ts prints how far each fitted
 * threshold moves over half-samples of the people (5th / 50th / 95th percentile) and, with
 * people split in halves at random, the FAR the fit on one half promises against the FAR
 * measured on the other (docs/face.md and docs/accuracy.md give those figures).
 *
 * Honest limits: a few thousand impostor pairs measure FARs down to about 1e-3; 1e-4 is near
 * the edge and 1e-6..1e-10 are extrapolations of the fitted tail, not measurements. `evidence`
 * says what the data shows at each threshold; /admin/models and docs/face.md publish it.
 */
export interface ImpostorFit {
  /** Raw cosine for each row of FAR_TABLE, in its order (strictly increasing). */
  raw_thresholds: number[];
  /** How the thresholds were fitted, and on which pairs. */
  method: string;
  pairs: number;
  measured_on: string;
  /** Impostor pairs accepted at each table threshold, with the 95% upper bound on the FAR. */
  evidence: { threshold: number; accepted: number; far_upper_95: number }[];
}

/** The spec's table: calibrated threshold and the false-accept rate it stands for. */
export const FAR_TABLE: readonly { far: number; threshold: number }[] = [
  { far: 1e-4, threshold: 0.3 },
  { far: 1e-6, threshold: 0.4 },
  { far: 1e-8, threshold: 0.5 },
  { far: 1e-10, threshold: 0.6 },
];

/** Fits printed by `node --import tsx bench/eval-far.ts --seed 953167440` (SCRFD-500m + 5-point alignment; the seed only drives the held-out check). */
export const IMPOSTOR_FITS: Record<string, ImpostorFit> = {
  face_rec_mobilefacenet_128d: {
    raw_thresholds: [0.4009, 0.567, 0.733, 0.8991],
    method: 'exponential tail fitted over the top 3% of impostor scores',
    pairs: 3204,
    measured_on: '3204 impostor pairs among 84 faces of 16 people (every identified face of the shared images)',
    evidence: [
      { threshold: 0.3, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.4, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.5, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.6, accepted: 0, far_upper_95: 0.001151 },
    ],
  },
  face_rec_faceplugin_512d: {
    raw_thresholds: [0.389, 0.5595, 0.7299, 0.9003],
    method: 'exponential tail fitted over the top 3% of impostor scores',
    pairs: 3204,
    measured_on: '3204 impostor pairs among 84 faces of 16 people (every identified face of the shared images)',
    evidence: [
      { threshold: 0.3, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.4, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.5, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.6, accepted: 0, far_upper_95: 0.001151 },
    ],
  },
  // Fitted with YuNet, the detector of face.profile commercial, on chips fitted on dense
  // landmarks (dlib-chip.ts), scored as the cosine of dlib-metric.ts's lift (dlib's
  // Euclidean metric) (`bench/eval-far.ts --detector yunet --seed 393124424`). Lifted cosines
  // of different people sit at 0.85-0.96; the tail's extrapolation reaches 1e-6 only at 0.997,
  // so 0.4 and above accept almost no genuine pair and 0.3 (0.972) is this recognizer's
  // practical operating point (docs/face.md).
  face_rec_dlib_resnet_128d: {
    raw_thresholds: [0.9725, 0.9969, 0.998, 0.999],
    method: 'exponential tail fitted over the top 3% of impostor scores (thresholds past 0.997 capped to stay below 1)',
    pairs: 3204,
    measured_on:
      "3204 impostor pairs among 84 faces of 16 people (every identified face of the shared images), YuNet detections, chips fitted on MediaPipe landmarks, scored by dlib's Euclidean metric (lifted cosine)",
    evidence: [
      { threshold: 0.3, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.4, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.5, accepted: 0, far_upper_95: 0.001151 },
      { threshold: 0.6, accepted: 0, far_upper_95: 0.001151 },
    ],
  },
};

/** Below the first table point, the curve follows the table's first slope down to 0.01, then flattens to 0 at raw -1. */
const FLOOR = 0.01;

export class ScoreCalibration {
  /** Knots (raw, calibrated), strictly increasing in both. */
  readonly knots: [number, number][];

  constructor(readonly fit: ImpostorFit) {
    const points = FAR_TABLE.map((row, i) => [fit.raw_thresholds[i]!, row.threshold] as [number, number]);
    const [first, second] = [points[0]!, points[1]!];
    const slope = (second[1] - first[1]) / (second[0] - first[0]);
    const rawFloor = first[0] - (first[1] - FLOOR) / slope;
    const knots: [number, number][] = [[-1, 0]];
    if (rawFloor > -1) knots.push([rawFloor, FLOOR]);
    knots.push(...points, [1, 1]);
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

/** One line for /admin/models: what the calibration rests on and what the data does and does not show. */
export function describeCalibration(recognizer: string): string {
  const fit = IMPOSTOR_FITS[recognizer];
  if (!fit) return 'no similarity calibration measured';
  const shown = fit.evidence.map((e) => `${e.threshold}: ${e.accepted} of ${fit.pairs} (FAR <= ${e.far_upper_95.toExponential(1)} at 95%)`).join(', ');
  return (
    `similarity calibration: ${fit.method}, ${fit.measured_on}. Impostor pairs accepted at each threshold: ${shown}. ` +
    `The table FARs (0.3 ~1e-4, 0.4 ~1e-6, 0.5 ~1e-8, 0.6 ~1e-10) are extrapolations of the fitted tail: this data cannot show a FAR below about 1e-3.`
  );
}
