import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The daemon's Prometheus metrics (GET /metrics), one registry per app so tests can
 * build several apps in one process. Hot paths only touch pre-made instruments
 * (a histogram observe, a counter inc); everything that is state (cameras, rules,
 * queues) is read by `collect` callbacks at scrape time, so it costs nothing between
 * scrapes. Label values are bounded: see docs/observability.md "Label cardinality".
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly inferenceDuration: Histogram<'model'>;
  readonly inferenceWait: Histogram<'model'>;
  readonly events: Counter<'type'>;
  readonly deliveries: Counter<'outcome'>;
  /** Per-model mean run time (ms) over the last runs, for MQTT box statistics. */
  private readonly speeds = new Map<string, { mean: number; n: number }>();

  constructor(readonly enabled: boolean) {
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'vigil_http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status code.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.inferenceDuration = new Histogram({
      name: 'vigil_inference_duration_seconds',
      help: 'Time one model run took on an inference worker, by model.',
      labelNames: ['model'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    });
    this.inferenceWait = new Histogram({
      name: 'vigil_inference_queue_wait_seconds',
      help: 'Time a model run waited for a free inference worker, by model.',
      labelNames: ['model'],
      buckets: [0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    });
    this.events = new Counter({ name: 'vigil_events_total', help: 'Events emitted on the bus, by type.', labelNames: ['type'], registers });
    this.deliveries = new Counter({
      name: 'vigil_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (failed, will be retried), failed (given up or refused), held (410 Gone or webhook disabled).',
      labelNames: ['outcome'],
      registers,
    });
    if (enabled) collectDefaultMetrics({ register: this.registry, prefix: 'vigil_' });
  }

  /** Records one model run (called by the inference pool for every run). */
  observeInference(model: string, waitSeconds: number, runSeconds: number): void {
    const s = this.speeds.get(model) ?? { mean: 0, n: 0 };
    // A running mean over (about) the last 100 runs.
    s.n = Math.min(s.n + 1, 100);
    s.mean += (runSeconds * 1000 - s.mean) / s.n;
    this.speeds.set(model, s);
    if (!this.enabled) return;
    this.inferenceWait.observe({ model }, waitSeconds);
    this.inferenceDuration.observe({ model }, runSeconds);
  }

  /** Mean ms per run of each model that ran, as Frigate's stats show detector speed. */
  inferenceSpeeds(): Record<string, number> {
    return Object.fromEntries([...this.speeds].map(([k, v]) => [k, Math.round(v.mean * 100) / 100]));
  }

  /**
   * A gauge whose values are read at scrape time. `read` calls `set(labels, value)`
   * for each series; series not set in a scrape disappear (a removed camera's too).
   */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[], read: (set: (labels: Record<L, string>, value: number) => void) => void): void {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        read((labels, value) => this.set(labels, value));
      },
    });
  }

  /** A counter whose totals are owned elsewhere (persisted counts) and copied in at scrape time. */
  counterFrom<L extends string>(name: string, help: string, labelNames: readonly L[], read: (set: (labels: Record<L, string>, value: number) => void) => void): void {
    new Counter<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        read((labels, value) => this.inc(labels, Math.max(0, value)));
      },
    });
  }

  scrape(): Promise<string> {
    return this.registry.metrics();
  }
}
