import { Agent } from 'undici';
import { redactUrl } from '../../core/redact.js';
import type { Logger } from 'pino';
import type { Outbox, Outcome, PendingJob } from './outbox.js';
import { mayRetry, parseRetryAfter, retryDelayMs, type RetryPolicy } from './retry-schedule.js';
import { deliveryHeaders } from './signer.js';
import type { WebhookStore } from './webhook-store.js';
import type { WebhookRecord } from './store.js';

export interface DeliveryWorkerOptions {
  maxWorkers: number;
  timeoutMs: number;
  /** CA certificates trusted for receivers (see tls-trust.ts). */
  ca: string[];
  policy: RetryPolicy;
  userAgent: string;
}

/** What one HTTP attempt came back with. */
interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
}

export type SettledListener = (job: PendingJob, outcome: Outcome) => void;

const ERROR_TEXT_BYTES = 200;
const RETRY_AFTER_CAP_MS = 24 * 3_600_000;
/** A receiver's Retry-After below this (0, or a date in the past) is raised to it. */
const RETRY_AFTER_FLOOR_MS = 1000;

/**
 * Takes due deliveries from the outbox and POSTs them, at most `maxWorkers` at a
 * time over all webhooks. A webhook whose last attempt failed gets one delivery
 * in flight at a time, so a dead or hanging receiver holds at most one worker
 * and cannot starve the healthy ones. Redirects are never followed (undici's
 * dispatcher does not follow them without the redirect interceptor).
 */
export class DeliveryWorker {
  private agent: Agent | undefined;
  private running = false;
  private inflight = 0;
  private readonly perWebhook = new Map<string, number>();
  private readonly failing = new Set<string>();
  private readonly aborts = new Set<AbortController>();
  private readonly attempts = new Set<Promise<void>>();
  private readonly listeners: SettledListener[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;
  private pumpQueued = false;
  delivered = 0;
  failed = 0;
  lastError: string | null = null;

  constructor(
    private readonly outbox: Outbox,
    private readonly webhooks: WebhookStore,
    private readonly opts: DeliveryWorkerOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.agent = new Agent({
      connections: this.opts.maxWorkers,
      connect: { ca: this.opts.ca, timeout: this.opts.timeoutMs },
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
    });
    this.running = true;
    this.kick();
  }

  /** Aborts attempts in flight (their deliveries stay pending on disk) and closes connections. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const ac of this.aborts) ac.abort(new Error('daemon stopping'));
    await Promise.allSettled([...this.attempts]);
    await this.agent?.destroy();
    this.agent = undefined;
  }

  /** Called for every finished attempt (tests and the benchmark observe deliveries through it). */
  onSettled(listener: SettledListener): void {
    this.listeners.push(listener);
  }

  /** Something became due (a new delivery, a redelivery): pump once the current tick is done. */
  kick(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  /** Disabled by the operator (PATCH): what is queued is held, like after 410 Gone. */
  holdAll(webhookId: string): number {
    this.failing.delete(webhookId);
    return this.outbox.holdQueued(webhookId, 'webhook disabled by the operator; held');
  }

  get inFlight(): number {
    return this.inflight;
  }

  private readonly canTake = (webhookId: string): boolean => (this.perWebhook.get(webhookId) ?? 0) < (this.failing.has(webhookId) ? 1 : this.opts.maxWorkers);

  private pump(): void {
    if (!this.running) return;
    const now = Date.now();
    while (this.inflight < this.opts.maxWorkers) {
      const job = this.outbox.takeDue(now, this.canTake);
      if (!job) break;
      const p = this.attempt(job).catch((err: unknown) => this.log.error({ err }, 'delivery attempt crashed'));
      this.attempts.add(p);
      void p.finally(() => this.attempts.delete(p));
    }
    this.arm(now);
  }

  /** Sets the timer for the next due delivery (only earlier than an already armed one). */
  private arm(now: number): void {
    if (this.inflight >= this.opts.maxWorkers) return;
    const next = this.outbox.nextDue(this.canTake);
    if (next === undefined) return;
    if (this.timer && this.timerAt <= next) return;
    clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(0, next - now),
    );
  }

  private async attempt(job: PendingJob): Promise<void> {
    const webhook = this.webhooks.get(job.webhookId);
    if (!webhook) {
      this.settle(job, { status: 'failed', statusCode: null, error: 'webhook no longer registered' });
      return;
    }
    if (!webhook.enabled) {
      // Disabled after this job was queued: keep it for the replay when it is enabled again.
      this.settle(job, { status: 'held', statusCode: null, error: `webhook disabled: ${webhook.disabled_reason ?? ''}; held` });
      return;
    }
    const body = this.outbox.bodyOf(job);
    if (body === undefined) {
      this.settle(job, { status: 'failed', statusCode: null, error: 'delivery body missing from the outbox' });
      return;
    }
    this.inflight++;
    this.perWebhook.set(job.webhookId, (this.perWebhook.get(job.webhookId) ?? 0) + 1);
    job.attempts++;
    let result: AttemptResult;
    try {
      result = await this.send(webhook, job, body);
    } finally {
      this.inflight--;
      const left = (this.perWebhook.get(job.webhookId) ?? 1) - 1;
      if (left > 0) this.perWebhook.set(job.webhookId, left);
      else this.perWebhook.delete(job.webhookId);
    }
    // Stopping: leave the record pending as it is on disk; the next start sends it again.
    if (!this.running) return;
    const outcome = this.classify(job, result);
    // After a failure a webhook gets one delivery at a time, oldest first, until its backlog
    // is gone: so a receiver back from an outage sees the events in the order they happened.
    if (outcome.status !== 'delivered') this.failing.add(job.webhookId);
    else if (this.outbox.queuedFor(job.webhookId) === 0) this.failing.delete(job.webhookId);
    this.settle(job, outcome);
    if (result.statusCode === 410) await this.disable(webhook);
    this.pump();
  }

  private settle(job: PendingJob, outcome: Outcome): void {
    this.outbox.finish(job, outcome);
    if (outcome.status === 'delivered') this.delivered++;
    else if (outcome.status === 'failed') this.failed++;
    if (outcome.status !== 'delivered') this.lastError = outcome.error;
    const where = { webhook_id: job.webhookId, delivery_id: String(job.seq), event_id: job.eventId, event_type: job.eventType, attempts: job.attempts };
    if (outcome.status === 'pending') {
      this.log.warn({ ...where, error: outcome.error, retry_in_ms: (outcome.due ?? Date.now()) - Date.now() }, 'webhook delivery failed; will retry');
    } else if (outcome.status === 'failed') {
      this.log.warn({ ...where, error: outcome.error }, 'webhook delivery given up');
    }
    for (const l of this.listeners) {
      try {
        l(job, outcome);
      } catch (err) {
        this.log.error({ err }, 'delivery listener threw');
      }
    }
  }

  /** 410 Gone: the receiver says this subscription is over. Disable it and hold what is queued. */
  private async disable(webhook: WebhookRecord): Promise<void> {
    const reason = `receiver answered 410 Gone at ${new Date().toISOString()}`;
    await this.webhooks.setEnabled(webhook.id, false, reason);
    const n = this.outbox.holdQueued(webhook.id, `webhook disabled: ${reason}; held`);
    this.failing.delete(webhook.id);
    this.log.warn({ webhook_id: webhook.id, url: redactUrl(webhook.url), held: n + 1 }, 'webhook disabled by 410 Gone; its deliveries are held until it is enabled again');
  }

  private classify(job: PendingJob, r: AttemptResult): Outcome {
    if (r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300) {
      return { status: 'delivered', statusCode: r.statusCode, error: null };
    }
    if (r.statusCode === 410) return { status: 'held', statusCode: 410, error: '410 Gone: webhook disabled; held for when it is enabled again' };
    const error = r.error ?? `HTTP ${r.statusCode}`;
    if (!mayRetry(job.attempts, this.opts.policy)) {
      return { status: 'failed', statusCode: r.statusCode, error: `gave up after ${job.attempts} attempts: ${error}` };
    }
    // A receiver's Retry-After may slow the schedule down (up to a day), never speed it up:
    // `Retry-After: 0` would otherwise spend every attempt in a few milliseconds.
    const scheduled = retryDelayMs(job.attempts, this.opts.policy);
    const delay = r.retryAfterMs !== null ? Math.max(scheduled, RETRY_AFTER_FLOOR_MS, Math.min(r.retryAfterMs, RETRY_AFTER_CAP_MS)) : scheduled;
    return { status: 'pending', statusCode: r.statusCode, error, due: Date.now() + delay };
  }

  private async send(webhook: WebhookRecord, job: PendingJob, body: string): Promise<AttemptResult> {
    const agent = this.agent;
    if (!agent) return { statusCode: null, error: 'worker stopped', retryAfterMs: null };
    const url = new URL(webhook.url);
    const ac = new AbortController();
    this.aborts.add(ac);
    const timer = setTimeout(() => ac.abort(new Error(`timed out after ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
    try {
      const res = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...deliveryHeaders(body, { id: job.eventId, type: job.eventType }, webhook.secret, this.opts.userAgent), ...basicAuth(url) },
        body,
        signal: ac.signal,
      });
      const code = res.statusCode;
      if (code >= 200 && code < 300) {
        await res.body.dump();
        return { statusCode: code, error: null, retryAfterMs: null };
      }
      const text = await readCapped(res.body, ERROR_TEXT_BYTES);
      let error = `HTTP ${code}${text ? `: ${text}` : ''}`;
      if (code >= 300 && code < 400) error = `HTTP ${code}: redirect not followed (location: ${String(res.headers.location ?? 'none')})`;
      const retryAfterMs = code === 429 || code === 503 ? parseRetryAfter(res.headers['retry-after']) : null;
      return { statusCode: code, error, retryAfterMs };
    } catch (err) {
      const e = err as Error & { code?: string; cause?: Error & { code?: string } };
      const reason = ac.signal.aborted ? (ac.signal.reason as Error).message : `${e.code ?? e.cause?.code ?? e.name}: ${e.message}`;
      return { statusCode: null, error: reason, retryAfterMs: null };
    } finally {
      clearTimeout(timer);
      this.aborts.delete(ac);
    }
  }
}

/** The first `limit` bytes of an error response as one line of text; the rest is discarded. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += chunk.toString('utf8');
    if (text.length >= limit) {
      body.destroy();
      break;
    }
  }
  return text.slice(0, limit).replace(/\s+/g, ' ').trim();
}

/** Credentials written into a webhook URL (https://user:password@host/...) are sent as HTTP Basic auth, as curl would. */
function basicAuth(url: URL): Record<string, string> {
  if (!url.username && !url.password) return {};
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}
