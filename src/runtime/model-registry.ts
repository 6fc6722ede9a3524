import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import type ort from 'onnxruntime-node';
import type { Logger } from 'pino';
import { ServiceUnavailableError } from '../core/errors.js';
import type { HwProfile } from './hw-profile.js';
import { modelManifest, type ManifestEntry } from './model-manifest.js';
import { createSession, zeroTensor } from './onnx-session.js';

export interface ModelStatus {
  name: string;
  file: string;
  loaded: boolean;
  reason?: string;
  provider?: string;
  fallback_reason?: string;
  license: string;
  sha256: string;
  load_ms?: number;
  warmup_ms?: number;
}

export interface LoadOptions {
  /** An operator-supplied file instead of the manifest's (its sha256 cannot be checked). */
  file?: string;
  /** Session tuning for this model (see SessionOptions in onnx-session.ts). */
  intraOpThreads?: number;
  spinning?: boolean;
}

export interface LoadedModel {
  entry: ManifestEntry;
  session: ort.InferenceSession;
  provider: string;
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Creates each model's InferenceSession once, checks the file's sha256 first and
 * warms the session up with a zero input; a missing, corrupt or unloadable file
 * leaves that model loaded:false with the reason and touches nothing else.
 */
export class ModelRegistry {
  private readonly loading = new Map<string, Promise<LoadedModel | undefined>>();
  private readonly loaded = new Map<string, LoadedModel>();
  private readonly statuses = new Map<string, ModelStatus>();

  constructor(
    private readonly modelsDir: string,
    private readonly profile: HwProfile,
    private readonly deviceId: number,
    private readonly log: Logger,
  ) {}

  /** Loads a model by manifest name (idempotent; concurrent callers share one load). */
  load(name: string, options: LoadOptions = {}): Promise<LoadedModel | undefined> {
    let p = this.loading.get(name);
    if (!p) {
      p = this.doLoad(name, options.file, options);
      this.loading.set(name, p);
    }
    return p;
  }

  /** `customFile` is an operator-supplied model (person.model_path): its sha256 cannot be checked. */
  private async doLoad(name: string, customFile: string | undefined, tuning: Pick<LoadOptions, 'intraOpThreads' | 'spinning'>): Promise<LoadedModel | undefined> {
    const entry = modelManifest().get(name);
    if (!entry) throw new Error(`model ${name} is not in models/manifest.json`);
    const defaultFile = join(this.modelsDir, entry.file);
    const file = customFile ?? defaultFile;
    const checkDigest = file === defaultFile;
    const status: ModelStatus = { name, file: entry.file, loaded: false, license: entry.license, sha256: entry.sha256 };
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
      const { session, provider, fallback_reason } = await createSession(file, {
        profile: this.profile,
        deviceId: this.deviceId,
        intraOpThreads: tuning.intraOpThreads,
        spinning: tuning.spinning,
      });
      status.load_ms = Math.round(performance.now() - t0);
      const t1 = performance.now();
      const feeds: Record<string, ort.Tensor> = {};
      entry.inputs.forEach((input, i) => {
        feeds[input.name] = zeroTensor(input.type, entry.warmup_shapes[i] ?? input.shape.map((d) => d ?? 1));
      });
      await session.run(feeds);
      status.warmup_ms = Math.round(performance.now() - t1);
      Object.assign(status, { loaded: true, provider, ...(fallback_reason ? { fallback_reason } : {}) });
      if (fallback_reason) this.log.warn({ model: name, fallback_reason }, 'execution provider fell back to CPU');
      const model: LoadedModel = { entry, session, provider };
      this.loaded.set(name, model);
      this.log.info({ model: name, provider, load_ms: status.load_ms, warmup_ms: status.warmup_ms }, 'model loaded');
      return model;
    } catch (err) {
      status.reason = `onnxruntime could not load or run the model: ${(err as Error).message.split('\n')[0]}`;
      this.log.error({ model: name, err }, 'model failed to load');
      return undefined;
    }
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
    for (const model of this.loaded.values()) await model.session.release();
    this.loaded.clear();
    this.loading.clear();
  }
}
