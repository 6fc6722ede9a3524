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

/**
 * A run waiting for a worker: `start(i, alone)` runs it on worker i's copy of the model; `alone`
 * when no other worker is busy and no other run waits, so it may have every core.
 */
type QueuedRun = (worker: number, alone: boolean) => Promise<void>;

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
  /** Runs that went to a model's shared-cores session (OpenTuning.sharedIntraOpThreads). */
  private sharedRuns = 0;
  private dispatchPending = false;
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

  /** Runs each worker has taken, runs waiting for one, and runs given a model's shared-cores session. */
  stats(): { runs: number[]; queued: number; shared: number } {
    let queued = 0;
    for (const q of this.queues.values()) queued += q.length;
    return { runs: [...this.runs], queued, shared: this.sharedRuns };
  }

  get size(): number {
    return this.workers.length;
  }

  /**
   * Opens the model in every worker; the returned model's runs are spread over them. With
   * `sharedIntraOpThreads` (fewer than `intraOpThreads`) each worker also opens it with that
   * many threads, and a run that starts while another worker is busy or another run waits gets
   * that session: two runs with every core each (the two detections of a /verify) would put
   * twice the threads on the cores, their parallel operators waiting at barriers on threads that
   * are not running.
   */
  async open(key: string, file: string, profile: HwProfile, deviceId: number, tuning: OpenTuning = {}): Promise<WorkerModel> {
    const { sharedIntraOpThreads, ...own } = tuning;
    const models = await Promise.all(this.workers.map((w) => w.open(key, file, profile, deviceId, own)));
    const narrower = sharedIntraOpThreads !== undefined && this.workers.length > 1 && sharedIntraOpThreads < (own.intraOpThreads ?? Infinity);
    const shared = narrower ? await Promise.all(this.workers.map((w) => w.open(`${key}#shared`, file, profile, deviceId, { ...own, intraOpThreads: sharedIntraOpThreads }))) : null;
    const pick = (i: number, alone: boolean): WorkerModel => {
      if (alone || !shared) return models[i]!;
      this.sharedRuns++;
      return shared[i]!;
    };
    const first = models[0]!;
    return {
      key,
      inputNames: first.inputNames,
      outputNames: first.outputNames,
      provider: first.provider,
      ...(first.fallback_reason ? { fallback_reason: first.fallback_reason } : {}),
      run: (feeds) => this.enqueue(key, (i, alone) => pick(i, alone).run(feeds)),
      runImage: (image, transfer) => this.enqueue(key, (i, alone) => pick(i, alone).runImage(image, transfer)),
      runReduced: (feeds, reduce) => this.enqueue(key, (i, alone) => pick(i, alone).runReduced(feeds, reduce)),
    };
  }

  private enqueue<T>(key: string, call: (worker: number, alone: boolean) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queue = this.queues.get(key);
      // The worker is marked free, and the next queued run started, before the caller resumes:
      // otherwise the worker would idle through the caller's own work on the answer (decoding
      // boxes, cutting the next crops) before the pool looked at its queue again.
      const queuedAt = performance.now();
      const run: QueuedRun = (i, alone) => {
        const startedAt = performance.now();
        return call(i, alone).then(
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
      // Dispatched once the current job's promise reactions have run, so that runs issued
      // together (the two detections of a /verify, the models of one face) are seen together
      // when the pool decides whether a run is alone.
      if (!this.dispatchPending) {
        this.dispatchPending = true;
        queueMicrotask(() => {
          this.dispatchPending = false;
          this.dispatch();
        });
      }
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
      void run(i, this.queues.size === 0 && this.busy.every((b, j) => j === i || !b));
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
