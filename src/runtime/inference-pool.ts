import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { HwProfile } from './hw-profile.js';
import { InferenceWorker, type TensorMap, type WireTensor, type WorkerModel } from './inference-worker.js';

export interface InferenceLayout {
  /** CPU cores of the box (os.availableParallelism). */
  cores: number;
  workers: number;
  /** onnxruntime intra-op threads of each session, unless a model sets its own. */
  intraOpThreads: number;
}

const MAX_AUTO_WORKERS = 4;

/**
 * server.inference_workers and the profile's intra_op_threads with 0 resolved: one worker
 * per core (at most 4; past that, intra-op threads pay better than more copies of every
 * session), and the cores shared out among the workers as intra-op threads.
 */
export function inferenceLayout(workersSetting: number, intraOpSetting: number, cores = availableParallelism()): InferenceLayout {
  const workers = workersSetting > 0 ? workersSetting : Math.max(1, Math.min(cores, MAX_AUTO_WORKERS));
  const intraOpThreads = intraOpSetting > 0 ? intraOpSetting : Math.max(1, Math.floor(cores / workers));
  return { cores, workers, intraOpThreads };
}

interface QueuedRun {
  models: WorkerModel[];
  feeds: WireTensor[];
  resolve: (out: TensorMap) => void;
  reject: (err: unknown) => void;
}

/**
 * Several inference workers, every model opened in each. A run goes to an idle worker, or
 * waits in one queue for the first worker that frees up, so a long run never holds short
 * ones behind it while another worker sits idle. Measured on the 2-core box
 * (bench/inference-workers.ts, docs/benchmarks.md "Inference workers"): two runs at a time
 * on two one-thread workers got through 1.2 to 1.9 times the runs per second of one worker
 * with two intra-op threads, and a small model (recognizer, MiniFASNet, landmarks) alone
 * ran within 20% of its two-thread time on one thread. So the cores are used by running
 * independent models at once (a face's recognizer beside its liveness and demographics, two
 * requests at once) rather than by splitting each operator; the one large model that nothing
 * else of a request can overlap, the face detector, is given every core by the face module.
 */
export class InferencePool {
  private readonly workers: InferenceWorker[];
  private readonly busy: boolean[];
  private readonly runs: number[];
  private readonly queue: QueuedRun[] = [];

  constructor(
    size: number,
    private readonly log: Logger,
  ) {
    this.workers = Array.from({ length: Math.max(1, size) }, (_, i) => new InferenceWorker(log.child({ worker: i })));
    this.busy = this.workers.map(() => false);
    this.runs = this.workers.map(() => 0);
  }

  /** Runs each worker has taken, and runs waiting for one. */
  stats(): { runs: number[]; queued: number } {
    return { runs: [...this.runs], queued: this.queue.length };
  }

  get size(): number {
    return this.workers.length;
  }

  /** Opens the model in every worker; the returned model's runs are spread over them. */
  async open(key: string, file: string, profile: HwProfile, deviceId: number, tuning: { intraOpThreads?: number } = {}): Promise<WorkerModel> {
    const models = await Promise.all(this.workers.map((w) => w.open(key, file, profile, deviceId, tuning)));
    const first = models[0]!;
    return {
      key,
      inputNames: first.inputNames,
      outputNames: first.outputNames,
      provider: first.provider,
      ...(first.fallback_reason ? { fallback_reason: first.fallback_reason } : {}),
      run: (feeds) =>
        new Promise<TensorMap>((resolve, reject) => {
          this.queue.push({ models, feeds, resolve, reject });
          this.dispatch();
        }),
    };
  }

  private dispatch(): void {
    for (let i = 0; i < this.workers.length && this.queue.length > 0; i++) {
      if (this.busy[i]) continue;
      const job = this.queue.shift()!;
      this.busy[i] = true;
      this.runs[i]!++;
      void job.models[i]!.run(job.feeds)
        .then(job.resolve, job.reject)
        .finally(() => {
          this.busy[i] = false;
          this.dispatch();
        });
    }
  }

  async close(): Promise<void> {
    this.log.info(this.stats(), 'inference pool closing');
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
