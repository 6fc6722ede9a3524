import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { ServiceUnavailableError } from '../core/errors.js';
import type { HwProfile } from './hw-profile.js';
import type { ImageFeed } from './image-feed.js';
import type { LastAxisReduction, ReducedRows } from './last-axis-reduction.js';
import { startWorker } from './start-worker.js';

/**
 * onnxruntime-node's InferenceSession.run() returns a promise but runs the model
 * synchronously on the calling thread (inside a setImmediate), so N queued runs hold the
 * event loop for N inferences back to back (measured: 617 ms with 16 concurrent /detect
 * requests). InferenceWorker moves sessions onto one worker thread: the main thread only
 * posts tensors (their buffers transferred, not copied), or an image's bytes that the worker
 * turns into the input tensor (image-feed.ts), and awaits the answer.
 *
 * The ModelRegistry's InferencePool runs several of these and spreads runs over them. A
 * worker that dies fails its pending runs with 503 and is respawned, sessions reopened, on
 * the next run.
 */

export type WireType = 'float32' | 'float16' | 'int64' | 'int32' | 'uint8';
export interface WireTensor {
  name: string;
  type: WireType;
  data: Float32Array | Uint16Array | BigInt64Array | Int32Array | Uint8Array;
  dims: number[];
}

export type WorkerRequest =
  | { op: 'open'; id: number; key: string; file: string; profile: HwProfile; deviceId: number; intraOpThreads?: number; freeInputDims?: boolean; foldAffine?: boolean }
  | { op: 'run'; id: number; key: string; feeds: WireTensor[]; image?: ImageFeed; reduce?: LastAxisReduction }
  | { op: 'close'; id: number };

export type WorkerReply =
  | { id: number; ok: true; inputNames?: string[]; outputNames?: string[]; provider?: string; fallback_reason?: string; outputs?: WireTensor[]; reduced?: ReducedRows }
  | { id: number; ok: false; error: string };

/** Outputs by name with their flat data and dims: what decoders read. */
export type TensorData = Record<string, { data: WireTensor['data']; dims: readonly number[] }>;
/** What a run returns: TensorData plus each output's element type. */
export type TensorMap = Record<string, { type: WireType; data: WireTensor['data']; dims: readonly number[] }>;

/** How a model's session is opened beyond its file. */
export interface OpenTuning {
  /** onnxruntime intra-op threads. */
  intraOpThreads?: number;
  /** Input height and width made free (free-input-dims.ts): the person detector fed at the frame's aspect. */
  freeInputDims?: boolean;
  /** Scalar affine and hardswish passes folded on the CPU provider (affine-fold.ts): the PP-OCR detector and recogniser. */
  foldAffine?: boolean;
}

interface OpenSpec extends OpenTuning {
  file: string;
  profile: HwProfile;
  deviceId: number;
}

/** A session living in the worker: same names as an InferenceSession, run() off the main thread. */
export interface WorkerModel {
  readonly key: string;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly provider: string;
  /** Why the profile's preferred provider was not used, when it was not. */
  readonly fallback_reason?: string;
  run(feeds: WireTensor[]): Promise<TensorMap>;
  /**
   * A run of an image model whose float input the worker fills from RGB bytes (image-feed.ts).
   * `transfer`: the bytes are the caller's to give away (their buffer is transferred, not copied).
   */
  runImage(image: ImageFeed, transfer?: boolean): Promise<TensorMap>;
  /**
   * A run whose `reduce.output` is reduced in the worker: it comes back as `reduced`, not among
   * `outputs`. With `image`, the worker fills that input from its bytes as runImage does (the
   * bytes are copied, not transferred: the text recogniser's caller keeps its crop).
   */
  runReduced(feeds: WireTensor[], reduce: LastAxisReduction, image?: ImageFeed): Promise<ReducedRun>;
}

export interface ReducedRun {
  outputs: TensorMap;
  reduced: ReducedRows;
}

export class InferenceWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: WorkerReply & { ok: true }) => void; reject: (e: Error) => void }>();
  private readonly specs = new Map<string, OpenSpec>();
  /** Keys opened in the current worker generation, and those of them whose open has completed. */
  private opened = new Map<string, Promise<void>>();
  private ready = new Set<string>();
  /** Set by close(), for good: a run or open after it must not spawn a worker nobody closes. */
  private closed = false;

  constructor(private readonly log: Logger) {}

  private spawn(): Worker {
    const w = startWorker(import.meta.url, 'inference-worker-thread');
    w.unref();
    w.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (reply.ok) p.resolve(reply);
      else p.reject(new Error(reply.error));
    });
    w.on('error', (err) => this.log.error({ err }, 'inference worker error'));
    w.on('exit', (code) => {
      if (this.worker !== w) return;
      this.worker = null;
      this.opened = new Map();
      this.ready.clear();
      if (!this.closed) this.log.error({ code }, 'inference worker exited; it is respawned on the next run');
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new ServiceUnavailableError('INFERENCE_UNAVAILABLE', `inference worker exited (code ${code}); retry the request`));
      }
    });
    this.worker = w;
    return w;
  }

  private request(msg: WorkerRequest, transfer: ArrayBuffer[] = []): Promise<WorkerReply & { ok: true }> {
    // A model load still warming up when the daemon stops lands here after close().
    if (this.closed && msg.op !== 'close') return Promise.reject(new ServiceUnavailableError('INFERENCE_UNAVAILABLE', 'the inference worker is shut down'));
    const w = this.worker ?? this.spawn();
    return new Promise((resolve, reject) => {
      this.pending.set(msg.id, { resolve, reject });
      w.postMessage(msg, transfer);
    });
  }

  private ensureOpen(key: string): Promise<void> {
    const p = this.opened.get(key);
    if (p) return p;
    const spec = this.specs.get(key);
    if (!spec) return Promise.reject(new Error(`model ${key} was never opened in the inference worker`));
    return this.track(key, this.request({ op: 'open', id: this.nextId++, key, ...spec }));
  }

  /** Records an open under way in this worker generation; a failed one is retried by the next run. */
  private track(key: string, reply: Promise<unknown>): Promise<void> {
    const done: Promise<void> = reply.then(() => {
      if (this.opened.get(key) === done) this.ready.add(key);
    });
    done.catch(() => {
      if (this.opened.get(key) === done) this.opened.delete(key);
    });
    this.ready.delete(key);
    this.opened.set(key, done);
    return done;
  }

  /** Creates the session in the worker (the file was already checked and warmed by the ModelRegistry). */
  async open(key: string, file: string, profile: HwProfile, deviceId: number, tuning: OpenTuning = {}): Promise<WorkerModel> {
    const spec: OpenSpec = {
      file,
      profile,
      deviceId,
      ...(tuning.intraOpThreads ? { intraOpThreads: tuning.intraOpThreads } : {}),
      ...(tuning.freeInputDims ? { freeInputDims: true } : {}),
      ...(tuning.foldAffine ? { foldAffine: true } : {}),
    };
    this.specs.set(key, spec);
    const reply = this.request({ op: 'open', id: this.nextId++, key, ...spec });
    void this.track(key, reply);
    const { inputNames = [], outputNames = [], provider = 'cpu', fallback_reason } = await reply;
    return {
      key,
      inputNames,
      outputNames,
      provider,
      ...(fallback_reason ? { fallback_reason } : {}),
      run: async (feeds) => (await this.run(key, feeds)).outputs,
      runImage: async (image, transfer = false) => (await this.run(key, [], undefined, { image, transfer })).outputs,
      runReduced: async (feeds, reduce, image) => {
        const { outputs, reduced } = await this.run(key, feeds, reduce, image ? { image, transfer: false } : undefined);
        if (!reduced) throw new Error(`the inference worker did not reduce ${reduce.output}`);
        return { outputs, reduced };
      },
    };
  }

  private async run(key: string, feeds: WireTensor[], reduce?: LastAxisReduction, image?: { image: ImageFeed; transfer: boolean }): Promise<{ outputs: TensorMap; reduced?: ReducedRows }> {
    // Posted at once when the session is open (no await first): a caller issuing many
    // runs in one synchronous loop has the worker start on the first while it prepares the next.
    if (!this.ready.has(key)) await this.ensureOpen(key);
    const transfer = feeds.map((f) => f.data.buffer as ArrayBuffer);
    // Bytes that are not the caller's to give away are copied (their own view only) and the copy
    // transferred. `new Uint8Array(view)` copies; a Buffer's slice() would not (it is a view of the
    // same memory), and transferring it detached the caller's image (a camera's frame ring).
    // Only bytes that own their whole buffer are handed over as they are: a view of a larger one
    // (a Buffer from a pool or a stream chunk) is copied too, so the rest of that memory stays put.
    const own = (b: Uint8Array) => b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
    const rgb = image && !(image.transfer && own(image.image.rgb)) ? new Uint8Array(image.image.rgb) : image?.image.rgb;
    if (rgb) transfer.push(rgb.buffer as ArrayBuffer);
    const reply = await this.request({ op: 'run', id: this.nextId++, key, feeds, ...(image && rgb ? { image: { ...image.image, rgb } } : {}), ...(reduce ? { reduce } : {}) }, transfer);
    const outputs: TensorMap = {};
    for (const o of reply.outputs ?? []) outputs[o.name] = { type: o.type, data: o.data, dims: o.dims };
    return { outputs, ...(reply.reduced ? { reduced: reply.reduced } : {}) };
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    if (!w) return;
    try {
      await this.request({ op: 'close', id: this.nextId++ });
    } catch {
      // exiting anyway
    }
    this.worker = null;
    this.opened = new Map();
    this.ready.clear();
    await w.terminate();
  }
}

/** A float32 feed for WorkerModel.run (its buffer is transferred: do not reuse `data`). */
export function floatFeed(name: string, data: Float32Array, dims: number[]): WireTensor {
  return { name, type: 'float32', data, dims };
}
