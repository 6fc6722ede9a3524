import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ServiceUnavailableError } from '../core/errors.js';
import type { HwProfile } from './hw-profile.js';
import { dataFileEntry, modelManifest, type ManifestEntry } from './model-manifest.js';
import { inferenceLayout, InferencePool, type InferenceLayout, type InferenceObserver } from './inference-pool.js';
import type { OpenTuning, WireTensor, WorkerModel } from './inference-worker.js';

export interface ModelStatus {
  name: string;
  file: string;
  loaded: boolean;
  reason?: string;
  provider?: string;
  fallback_reason?: string;
  license: string;
  /** The manifest's commercial_use: the weights' licence permits commercial use. */
  commercial_use: boolean;
  sha256: string;
  load_ms?: number;
  warmup_ms?: number;
}

export interface LoadModelOptions extends OpenTuning {
  /** Folder holding the manifest's file for it (document.models_dir); the registry's own by default. */
  dir?: string;
  /** An operator-supplied file (person.model_path): its sha256 cannot be checked. */
  file?: string;
}

export interface LoadedModel {
  entry: ManifestEntry;
  /** The session in the inference pool: flat typed-array feeds (transferred) and outputs. */
  runner: WorkerModel;
  provider: string;
}

/** Zero-filled warm-up feed of a shape, in float32 or IEEE half bits (Node 20 has no Float16Array). */
function zeroFeed(name: string, type: 'float32' | 'float16', dims: number[]): WireTensor {
  const size = dims.reduce((a, b) => a * b, 1);
  return { name, type, data: type === 'float16' ? new Uint16Array(size) : new Float32Array(size), dims };
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Creates each model's session once, checks the file's sha256 first and warms the session
 * up with a zero input; a missing, corrupt or unloadable file leaves that model
 * loaded:false with the reason and touches nothing else. Every session lives in the
 * inference pool's worker threads (one copy per worker): onnxruntime-node computes run()
 * synchronously on the calling thread, so sessions on the main thread would hold the event
 * loop for every inference.
 */
export class ModelRegistry {
  private readonly pool: InferencePool;
  readonly layout: InferenceLayout;
  private readonly loading = new Map<string, Promise<LoadedModel | undefined>>();
  private readonly loaded = new Map<string, LoadedModel>();
  private readonly statuses = new Map<string, ModelStatus>();

  constructor(
    private readonly modelsDir: string,
    private readonly profile: HwProfile,
    private readonly deviceId: number,
    private readonly log: Logger,
    /** server.inference_workers; 0 = one per core. */
    inferenceWorkers = 0,
    observe?: InferenceObserver,
  ) {
    this.layout = inferenceLayout(inferenceWorkers, profile.intra_op_threads);
    this.pool = new InferencePool(this.layout.workers, log.child({ component: 'inference-worker' }), observe);
  }

  /** Loads a model by manifest name (idempotent; concurrent callers share one load). */
  load(name: string, options: LoadModelOptions = {}): Promise<LoadedModel | undefined> {
    let p = this.loading.get(name);
    if (!p) {
      p = this.doLoad(name, options);
      this.loading.set(name, p);
    }
    return p;
  }

  private async doLoad(name: string, { file: customFile, dir, ...tuning }: LoadModelOptions): Promise<LoadedModel | undefined> {
    const entry = modelManifest().get(name);
    if (!entry) throw new Error(`model ${name} is not in models/manifest.json`);
    const file = customFile ?? join(dir ?? this.modelsDir, entry.file);
    // The manifest's file, wherever its folder is, is checked; an operator's own file cannot be.
    const checkDigest = customFile === undefined || customFile === join(this.modelsDir, entry.file);
    const status: ModelStatus = { name, file: entry.file, loaded: false, license: entry.license, commercial_use: entry.commercial_use === true, sha256: entry.sha256 };
    this.statuses.set(name, status);
    if (!existsSync(file)) {
      status.reason = `model file missing: ${file} (run: npm run fetch-models, with VIGIL_MODEL_MIRROR set on boxes without internet)`;
      this.log.warn({ model: name }, status.reason);
      return undefined;
    }
    const digest = checkDigest ? await fileSha256(file) : entry.sha256;
    if (digest !== entry.sha256) {
      status.reason = `model file corrupt: sha256 ${digest.slice(0, 12)}... differs from the manifest's ${entry.sha256.slice(0, 12)}... (run: npm run fetch-models)`;
      this.log.warn({ model: name }, status.reason);
      return undefined;
    }
    const t0 = performance.now();
    try {
      const runner = await this.pool.open(name, file, this.profile, this.deviceId, {
        intraOpThreads: tuning.intraOpThreads || this.layout.intraOpThreads,
        ...(tuning.freeInputDims ? { freeInputDims: true } : {}),
        ...(tuning.foldAffine ? { foldAffine: true } : {}),
      });
      const { provider, fallback_reason } = runner;
      status.load_ms = Math.round(performance.now() - t0);
      const t1 = performance.now();
      // One warm-up per worker: concurrent runs go one to each.
      const warmUp = () => runner.run(entry.inputs.map((input, i) => zeroFeed(input.name, input.type, entry.warmup_shapes[i] ?? input.shape.map((d) => d ?? 1))));
      await Promise.all(Array.from({ length: this.pool.size }, warmUp));
      status.warmup_ms = Math.round(performance.now() - t1);
      Object.assign(status, { loaded: true, provider, ...(fallback_reason ? { fallback_reason } : {}) });
      if (fallback_reason) this.log.warn({ model: name, fallback_reason }, 'execution provider fell back to CPU');
      const model: LoadedModel = { entry, runner, provider };
      this.loaded.set(name, model);
      this.log.info({ model: name, provider, load_ms: status.load_ms, warmup_ms: status.warmup_ms }, 'model loaded');
      return model;
    } catch (err) {
      status.reason = `onnxruntime could not load or run the model: ${(err as Error).message.split('\n')[0]}`;
      this.log.error({ model: name, err }, 'model failed to load');
      return undefined;
    }
  }

  /**
   * A data file of the manifest (a dictionary, say) read from `dir` and checked against its
   * sha256, as the models are; throws with the reason when it is missing or corrupt.
   */
  async readDataFile(name: string, dir: string = this.modelsDir): Promise<Buffer> {
    const entry = dataFileEntry(name);
    if (!entry) throw new Error(`${name} is not in models/manifest.json`);
    const file = join(dir, entry.file);
    if (!existsSync(file)) throw new Error(`${name} file missing: ${file} (run: npm run fetch-models)`);
    const bytes = await readFile(file);
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== entry.sha256) throw new Error(`${name} file corrupt: sha256 ${digest.slice(0, 12)}... differs from the manifest's`);
    return bytes;
  }

  /** The loaded model, or a 503 MODEL_UNAVAILABLE that says why. */
  get(name: string): LoadedModel {
    const model = this.loaded.get(name);
    if (model) return model;
    const reason = this.statuses.get(name)?.reason ?? 'not loaded';
    throw new ServiceUnavailableError('MODEL_UNAVAILABLE', `model ${name} is unavailable: ${reason}`, { model: name });
  }

  tryGet(name: string): LoadedModel | undefined {
    return this.loaded.get(name);
  }

  status(name: string): ModelStatus | undefined {
    return this.statuses.get(name);
  }

  async close(): Promise<void> {
    await this.pool.close();
    this.loaded.clear();
    this.loading.clear();
  }
}
