import type { Static } from 'typebox';
import type { VigilConfig } from '../../config/schema.js';
import { UnprocessableError } from '../../core/errors.js';
import type { RgbImage } from '../../core/image-decode.js';
import type { WorkerModel } from '../../runtime/inference-worker.js';
import type { ModelRegistry } from '../../runtime/model-registry.js';
import { DEMOGRAPHICS_MODEL, estimateDemographics } from './demographics.js';
import type { TensorLayout } from './detector-input.js';
import { alignFace } from './face-align.js';
import { FaceDetector, type DetectorKind } from './face-detector.js';
import { faceSize, type RawFace } from './face-geometry.js';
import { assessQuality, type Quality } from './face-quality.js';
import { cosine, EMBEDDING_SPACES, FaceRecognizer } from './face-recognizer.js';
import { DETECTOR_MODELS, LIVENESS_MODELS, RECOGNIZER_LANDMARKS, RECOGNIZER_MODELS } from './model-names.js';
import { PassiveLiveness } from './passive-liveness.js';
import type { FaceDetectionSchema, FaceResultSchema } from './schema.js';
import { calibrationFor, type ScoreCalibration } from './score-calibration.js';

export type { Quality, QualityReason } from './face-quality.js';

/** The response shapes come from the schemas (the API contract), not from a second hand-written copy. */
export type FaceDetection = Static<typeof FaceDetectionSchema>;
export type FaceResult = Static<typeof FaceResultSchema>;

export interface AnalyzedFace {
  result: FaceResult;
  /** Unit embedding of the configured recognizer (EMBEDDING_SPACES), or null when embed was off. */
  embedding: Float32Array | null;
}

/** Per-stage wall time in ms, summed over faces; filled when passed in AnalyzeOptions.timings. */
export interface StageTimings {
  detect: number;
  align: number;
  embed: number;
  quality: number;
  liveness: number;
  demographics: number;
  /** Of `detect`: the detector's run in the inference pool (its input filled in the worker, session.run, the hand-overs). */
  detect_model: number;
}

export function emptyTimings(): StageTimings {
  return { detect: 0, align: 0, embed: 0, quality: 0, liveness: 0, demographics: 0, detect_model: 0 };
}

export interface AnalyzeOptions {
  /** Compute embeddings (default true). */
  embed?: boolean;
  /** Quality object (default face.enable_quality). */
  quality?: boolean;
  /** Passive liveness (default face.enable_liveness; always null when that is false). */
  liveness?: boolean;
  /**
   * Age and gender (default face.enable_demographics; always null when that is false or the
   * model is not loaded, which /admin/models explains). Document verify passes false: the spec
   * keeps demographics null there.
   */
  demographics?: boolean;
  /** Most faces analysed, largest first (default face.max_faces). */
  maxFaces?: number;
  /** Enlarge images under 320 px (at most 4x) before detection, for tiny faces in tiny images. */
  minFaceUpscale?: boolean;
  /** Detector score threshold override (default face.det_thresh). */
  detThresh?: number;
  /** Black margin around the detector input, a fraction of each side (default face.edge_pad; bench/eval-face-edge.ts). */
  edgePad?: number;
  timings?: StageTimings;
}

const DETECTOR_KINDS: Record<VigilConfig['face']['detector'], DetectorKind> = { scrfd_500m: 'scrfd', 'scrfd_2.5g': 'scrfd', yunet: 'yunet' };
const LIVENESS_SCALES: Record<string, number> = { antispoof_minifasnet_v2: 2.7, antispoof_minifasnet_v1se: 4.0 };

const r2 = (v: number) => Math.round(v * 100) / 100;
const r4 = (v: number) => Math.round(v * 10000) / 10000;

/**
 * Face analysis over the face models loaded by the plugin: detection (largest face first),
 * 5-point alignment, embedding, quality, passive liveness and demographics. The sessions run
 * in the inference worker thread; they are looked up per call so a model that failed to load
 * answers 503 MODEL_UNAVAILABLE with its reason. Everything else is async (libvips resize)
 * or a short JS loop over a crop, so the event loop is never held for long.
 */
export class FaceService {
  readonly recognizerName: string;
  readonly detectorName: string;
  /** The space the recognizer's embeddings live in (EMBEDDING_SPACES): what stored samples are tagged with. */
  readonly embeddingSpace: string;
  readonly calibration: ScoreCalibration;
  private readonly face: VigilConfig['face'];
  constructor(
    private readonly models: ModelRegistry,
    config: VigilConfig,
  ) {
    this.face = config.face;
    this.detectorName = DETECTOR_MODELS[config.face.detector];
    this.recognizerName = RECOGNIZER_MODELS[config.face.recognizer];
    this.embeddingSpace = EMBEDDING_SPACES[this.recognizerName]!.name;
    this.calibration = calibrationFor(this.recognizerName);
  }

  /** The models the configuration asks for: the detector, the recognizer (and the landmark model its alignment needs) and, when enabled, the liveness pair. */
  requiredModels(): string[] {
    const landmarks = RECOGNIZER_LANDMARKS[this.recognizerName];
    return [this.detectorName, this.recognizerName, ...(landmarks ? [landmarks] : []), ...(this.face.enable_liveness ? LIVENESS_MODELS : [])];
  }

  /** Every face model this configuration runs (required and optional). */
  activeModels(): string[] {
    return [...this.requiredModels(), ...this.optionalModels()];
  }

  /** Models whose absence only leaves their field null (demographics). */
  optionalModels(): string[] {
    return this.face.enable_demographics ? [DEMOGRAPHICS_MODEL] : [];
  }

  /**
   * Loads a model through the registry (sha256 check, sessions in the inference pool's workers,
   * warm-up, /admin/models status). Undefined when it cannot load (the registry keeps the reason).
   */
  async openModel(name: string): Promise<WorkerModel | undefined> {
    return (await this.models.load(name, this.modelTuning(name)))?.runner;
  }

  /**
   * A recognizer by manifest name with the models its alignment needs, loaded through the
   * registry (benches compare recognizers the configuration does not run); undefined when one cannot load.
   */
  async openRecognizer(name: string, layout?: TensorLayout): Promise<FaceRecognizer | undefined> {
    const model = await this.openModel(name);
    const landmarksName = RECOGNIZER_LANDMARKS[name];
    const landmarks = landmarksName ? await this.openModel(landmarksName) : undefined;
    if (!model || (landmarksName && !landmarks)) return undefined;
    return new FaceRecognizer(model, name, { layout, landmarks });
  }

  /** How a face model's sessions are opened (the module contract loads the configured ones with it). */
  modelTuning(name: string): { intraOpThreads?: number } {
    // The detector runs first in every request, before anything else of it can run, so its
    // session gets every core: SCRFD-500m at 640x480 took 10.3 ms with two intra-op threads
    // against 16.6 ms with the pool's one (docs/benchmarks.md, "Runtime").
    return name === this.detectorName ? { intraOpThreads: this.models.layout.cores } : {};
  }

  /** A loaded model's worker session, or 503 MODEL_UNAVAILABLE with the registry's reason. */
  model(name: string): WorkerModel {
    return this.models.get(name).runner;
  }

  private detector(): FaceDetector {
    return new FaceDetector(this.model(this.detectorName), DETECTOR_KINDS[this.face.detector]);
  }

  private recognizer(): FaceRecognizer {
    const landmarks = RECOGNIZER_LANDMARKS[this.recognizerName];
    return new FaceRecognizer(this.model(this.recognizerName), this.recognizerName, { landmarks: landmarks ? this.model(landmarks) : undefined });
  }

  private passiveLiveness(): PassiveLiveness {
    return new PassiveLiveness(LIVENESS_MODELS.map((name) => ({ model: this.model(name), scale: LIVENESS_SCALES[name]! })));
  }

  /** Raw detections, largest first, capped at maxFaces. */
  async detect(img: RgbImage, opts: AnalyzeOptions = {}): Promise<RawFace[]> {
    const t = opts.timings;
    const t0 = performance.now();
    const inner = t ? { prep_ms: 0, model_ms: 0 } : undefined;
    const faces = await this.detector().detect(
      img,
      { detSize: this.face.det_size, thresh: opts.detThresh ?? this.face.det_thresh, upscaleSmall: opts.minFaceUpscale, edgePad: opts.edgePad ?? this.face.edge_pad },
      inner,
    );
    faces.sort((a, b) => faceSize(b.box) - faceSize(a.box));
    if (t && inner) {
      t.detect += performance.now() - t0;
      t.detect_model += inner.model_ms;
    }
    return faces.slice(0, Math.max(0, opts.maxFaces ?? this.face.max_faces));
  }

  /** Every face found (up to maxFaces), largest first. */
  async analyze(img: RgbImage, opts: AnalyzeOptions = {}): Promise<AnalyzedFace[]> {
    return this.analyzeFaces(img, await this.detect(img, opts), opts);
  }

  /** Analyses faces already detected (by detect()), in their order. */
  async analyzeFaces(img: RgbImage, faces: RawFace[], opts: AnalyzeOptions = {}): Promise<AnalyzedFace[]> {
    // All faces at once: their model runs queue in the inference pool, which keeps every
    // worker busy; awaiting face by face would leave all but one idle.
    return Promise.all(faces.map((f) => this.analyzeFace(img, f, opts)));
  }

  /** The largest face, or 422 NO_FACE naming the form field the image came from. */
  async largest(img: RgbImage, field: string, opts: AnalyzeOptions = {}): Promise<AnalyzedFace> {
    const [face] = await this.analyze(img, { ...opts, maxFaces: 1 });
    if (!face) throw new UnprocessableError('NO_FACE', `no face found in "${field}"`, { field });
    return face;
  }

  /** Calibrated similarity of two embeddings on the spec's threshold scale, 0..1. */
  similarity(a: Float32Array, b: Float32Array): number {
    return r4(this.calibration.calibrate(cosine(a, b)));
  }

  private async analyzeFace(img: RgbImage, f: RawFace, opts: AnalyzeOptions): Promise<AnalyzedFace> {
    const t = opts.timings;
    const wantEmbed = opts.embed ?? true;
    const wantQuality = opts.quality ?? this.face.enable_quality;
    const wantLiveness = this.face.enable_liveness && (opts.liveness ?? true);
    // Optional model: absent means null, not a failed request.
    const demographicsModel = this.face.enable_demographics && (opts.demographics ?? true) ? this.models.tryGet(DEMOGRAPHICS_MODEL)?.runner : undefined;
    const size = faceSize(f.box);
    const t0 = performance.now();
    const recognizer = wantEmbed ? this.recognizer() : null;
    const aligned = wantQuality || recognizer?.usesArcfaceCrop ? alignFace(img, f.kps) : null;
    if (t) t.align += performance.now() - t0;
    // The models run concurrently (the pool spreads them over its workers), longest first so
    // that the two short liveness runs fill in behind them: the recognizer as soon as the
    // face is aligned, then demographics, then liveness. A timing is each stage's own wall
    // time, so with two workers the stages overlap and sum to more than the request.
    const timed = async <T>(stage: keyof StageTimings, work: () => Promise<T>): Promise<T> => {
      const start = performance.now();
      const value = await work();
      if (t) t[stage] += performance.now() - start;
      return value;
    };
    // A recognizer trained on another crop (dlib's 150x150 chip) gets its own; its dense
    // landmark run counts in `embed`, and the other models do not wait for it.
    const embeddingP = recognizer ? timed('embed', async () => recognizer.embed(aligned && recognizer.usesArcfaceCrop ? aligned : await recognizer.align(img, f))) : Promise.resolve(null);
    const demographicsP = demographicsModel ? timed('demographics', () => estimateDemographics(demographicsModel, img, [f])).then(([d]) => d ?? null) : Promise.resolve(null);
    const livenessP = wantLiveness ? timed('liveness', () => this.passiveLiveness().check(img, f.box)).then((l) => ({ is_live: l.is_live, score: r4(l.score) })) : Promise.resolve(null);
    let quality: Quality | null = null;
    if (wantQuality && aligned) {
      const q0 = performance.now();
      quality = assessQuality({ aligned, faceSize: size, kps: f.kps, gate: this.face.quality_gate });
      if (t) t.quality += performance.now() - q0;
    }
    const [embedding, liveness, demographics] = await Promise.all([embeddingP, livenessP, demographicsP]);
    return {
      embedding,
      result: {
        detection: {
          bbox: [r2(f.box[0]), r2(f.box[1]), r2(f.box[2]), r2(f.box[3])],
          confidence: r4(f.score),
          face_size: r2(size),
          landmarks: f.kps.map(([x, y]) => [r2(x), r2(y)] as [number, number]),
        },
        quality,
        demographics,
        liveness,
        has_embedding: embedding !== null,
      },
    };
  }
}
