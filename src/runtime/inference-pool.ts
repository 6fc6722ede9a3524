import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { HwProfile } from './hw-profile.js';
import { InferenceWorker, type OpenTuning, type WorkerModel } from './inference-worker.js';

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

/** Told about every run: how long it waited for a worker and how long it ran (seconds). */
export type InferenceObserver = (model: string, waitSeconds: number, runSeconds: number) => void;

/** A run waiting for a worker: `start(i)` runs it on worker i's copy of the model. */
type QueuedRun = (worker: number) => Promise<void>;

/**
 * Several inference workers, every model opened in each. A run goes to an idle worker, or
 * waits for the first worker that frees up, so a long run never holds short ones behind it
 * while another worker sits idle. Waiting runs queue per model and the models take turns:
 * a face detection issued beside a page's thirty text lines, or a /detect arriving during a
 * /scan, waits for one run per worker, not for all thirty. Measured on the 2-core box
 * (bench/inference-workers.ts, docs/benchmarks.md "Runtime"): two runs at a time
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
  /** Waiting runs by model key; Map order is the turn order (a model that was served goes last). */
  private readonly queues = new Map<string, QueuedRun[]>();

  constructor(
    size: number,
    private readonly log: Logger,
    private readonly observe?: InferenceObserver,
  ) {
    this.workers = Array.from({ length: Math.max(1, size) }, (_, i) => new InferenceWorker(log.child({ worker: i })));
    this.busy = this.workers.map(() => false);
    this.runs = this.workers.map(() => 0);
  }

  /** Runs each worker has taken, and runs waiting for one. */
  stats(): { runs: number[]; queued: number } {
    let queued = 0;
    for (const q of this.queues.values()) queued += q.length;
    return { runs: [...this.runs], queued };
  }

  get size(): number {
    return this.workers.length;
  }

  /** Opens the model in every worker; the returned model's runs are spread over them. */
  async open(key: string, file: string, profile: HwProfile, deviceId: number, tuning: OpenTuning = {}): Promise<WorkerModel> {
    const models = await Promise.all(this.workers.map((w) => w.open(key, file, profile, deviceId, tuning)));
    const first = models[0]!;
    return {
      key,
      inputNames: first.inputNames,
      outputNames: first.outputNames,
      provider: first.provider,
      ...(first.fallback_reason ? { fallback_reason: first.fallback_reason } : {}),
      run: (feeds) => this.enqueue(key, (i) => models[i]!.run(feeds)),
      runImage: (image, transfer) => this.enqueue(key, (i) => models[i]!.runImage(image, transfer)),
      runReduced: (feeds, reduce, image) => this.enqueue(key, (i) => models[i]!.runReduced(feeds, reduce, image)),
    };
  }

  private enqueue<T>(key: string, call: (worker: number) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queue = this.queues.get(key);
      // The worker is marked free, and the next queued run started, before the caller resumes:
      // otherwise the worker would idle through the caller's own work on the answer (decoding
      // boxes, cutting the next crops) before the pool looked at its queue again.
      const queuedAt = performance.now();
      const run: QueuedRun = (i) => {
        const startedAt = performance.now();
        return call(i).then(
          (value) => {
            this.release(i);
            this.observe?.(key, (startedAt - queuedAt) / 1000, (performance.now() - startedAt) / 1000);
            resolve(value);
          },
          (err: unknown) => {
            this.release(i);
            reject(err as Error);
          },
        );
      };
      if (queue) queue.push(run);
      else this.queues.set(key, [run]);
      this.dispatch();
    });
  }

  /** The next model's oldest run; that model's turn passes to the others. */
  private next(): QueuedRun | undefined {
    for (const [key, queue] of this.queues) {
      const run = queue.shift()!;
      this.queues.delete(key);
      if (queue.length > 0) this.queues.set(key, queue);
      return run;
    }
    return undefined;
  }

  private dispatch(): void {
    for (let i = 0; i < this.workers.length && this.queues.size > 0; i++) {
      if (this.busy[i]) continue;
      const run = this.next()!;
      this.busy[i] = true;
      this.runs[i]!++;
      void run(i);
    }
  }

  private release(worker: number): void {
    this.busy[worker] = false;
    this.dispatch();
  }

  async close(): Promise<void> {
    this.log.info(this.stats(), 'inference pool closing');
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
