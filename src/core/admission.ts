import type { FastifyInstance } from 'fastify';
import type { VigilConfig } from '../config/schema.js';
import { AppError } from './errors.js';

/** Endpoint classes that run models on an uploaded image, each with its own gate. */
export type AdmissionClass = 'face' | 'document' | 'liveness' | 'identity';

/** Routes (method and route pattern) that decode an upload and run inference. */
const ROUTE_CLASSES: Record<string, AdmissionClass> = {
  'POST /api/v1/detect': 'face',
  'POST /api/v1/verify': 'face',
  'POST /api/v1/documents/scan': 'document',
  'POST /api/v1/documents/ocr': 'document',
  'POST /api/v1/documents/mrz': 'document',
  'POST /api/v1/documents/verify': 'document',
  'POST /api/v1/liveness/sessions/:session_id/frame': 'liveness',
  'POST /api/v1/watchlist/enroll': 'identity',
  'POST /api/v1/identify': 'identity',
  'POST /api/v1/identify/track': 'identity',
};

export class BusyError extends AppError {
  constructor(
    klass: AdmissionClass,
    why: string,
    readonly retryAfterSeconds: number,
  ) {
    super(503, 'BUSY', `the ${klass} endpoints are at capacity (${why}); retry after ${retryAfterSeconds} s`, { class: klass });
  }
}

/**
 * A bounded queue in front of one endpoint class: `concurrency` requests run, `queue` more
 * wait (first come, first served) for at most `maxWaitMs`, and the rest are refused at once
 * with 503 BUSY. Admission happens in onRequest, before the upload is read, so a refused or
 * waiting client's body stays in its socket (TCP back-pressure) rather than in our memory.
 */
export class AdmissionGate {
  private running = 0;
  private readonly waiting: { admit: () => void; timer: NodeJS.Timeout }[] = [];
  /** Smoothed service time of admitted requests, for Retry-After. */
  private serviceMs = 200;
  private refused = 0;

  constructor(
    readonly klass: AdmissionClass,
    readonly concurrency: number,
    readonly queue: number,
    readonly maxWaitMs: number,
  ) {}

  stats(): { running: number; waiting: number; refused: number; concurrency: number; queue: number } {
    return { running: this.running, waiting: this.waiting.length, refused: this.refused, concurrency: this.concurrency, queue: this.queue };
  }

  /** Seconds until a slot is likely free: the queue ahead drained at the measured service rate. */
  private retryAfter(): number {
    const ahead = this.waiting.length + this.running;
    return Math.max(1, Math.ceil((ahead * this.serviceMs) / this.concurrency / 1000));
  }

  /** Resolves with a release function once admitted; rejects with BusyError when full or after maxWaitMs. */
  enter(): Promise<() => void> {
    if (this.running < this.concurrency && this.waiting.length === 0) return Promise.resolve(this.admitted());
    if (this.waiting.length >= this.queue) {
      this.refused++;
      return Promise.reject(new BusyError(this.klass, `${this.running} running, ${this.waiting.length} waiting`, this.retryAfter()));
    }
    return new Promise((resolve, reject) => {
      const entry = {
        admit: () => {
          clearTimeout(entry.timer);
          resolve(this.admitted());
        },
        timer: setTimeout(() => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          this.refused++;
          reject(new BusyError(this.klass, `waited ${this.maxWaitMs} ms for a slot`, this.retryAfter()));
        }, this.maxWaitMs),
      };
      this.waiting.push(entry);
    });
  }

  private admitted(): () => void {
    this.running++;
    const t0 = performance.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.running--;
      this.serviceMs = 0.8 * this.serviceMs + 0.2 * (performance.now() - t0);
      this.waiting.shift()?.admit();
    };
  }
}

/** One gate per endpoint class, wired in front of the routes of ROUTE_CLASSES. */
export function installAdmission(app: FastifyInstance, config: VigilConfig, inferenceWorkers: number): Map<AdmissionClass, AdmissionGate> {
  const l = config.limits;
  // A lone request already uses every core (the detector runs with all of them as intra-op
  // threads, a face's models spread over the workers): two at once overlap one's upload and
  // decode with the other's inference; more would only share the cores and stretch each.
  const concurrency = l.inference_concurrency > 0 ? l.inference_concurrency : Math.min(2, Math.max(1, inferenceWorkers));
  const gates = new Map<AdmissionClass, AdmissionGate>();
  for (const k of new Set(Object.values(ROUTE_CLASSES))) gates.set(k, new AdmissionGate(k, concurrency, l.inference_queue, l.queue_wait_ms));
  app.addHook('onRequest', async (request, reply) => {
    const klass = ROUTE_CLASSES[`${request.method} ${request.routeOptions.url ?? ''}`];
    if (!klass) return;
    const gate = gates.get(klass)!;
    let release: () => void;
    try {
      release = await gate.enter();
    } catch (err) {
      // The body is left unread; Node discards what is still arriving after the answer, so the
      // client reliably sees the 503 (closing at once made some clients see a reset instead).
      if (err instanceof BusyError) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
    // 'close' fires on the answer, on a client abort and on a timeout alike: the slot always comes back.
    if (request.raw.destroyed || reply.raw.closed) release();
    else reply.raw.once('close', release);
  });
  return gates;
}
