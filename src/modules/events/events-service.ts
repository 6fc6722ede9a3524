import { randomUUID } from 'node:crypto';
import { outboundBody } from './outbound-body.js';
import type { VigilContext } from '../../core/context.js';
import type { ModuleReport } from '../../core/status-board.js';
import type { EventType, VigilEvent } from '../../core/event-types.js';
import { packageVersion } from '../../core/package-root.js';
import { registerBoxStats } from './box-stats.js';
import { DeliveryWorker } from './delivery-worker.js';
import { EventHistory } from './history.js';
import { MqttMirror } from './mqtt-mirror.js';
import { MqttQueue } from './mqtt-queue.js';
import { Outbox, type Outcome, type PendingJob } from './outbox.js';
import { openEventsStore, type DeliveryRecord, type EventsStore, type WebhookRecord } from './store.js';
import { trustedCAs } from './tls-trust.js';
import { WebhookStore } from './webhook-store.js';

const OWNER = 'events';

/** The parts that exist once the module has started (the LMDB store is opened in start, not here). */
interface Started {
  store: EventsStore;
  webhooks: WebhookStore;
  outbox: Outbox;
  worker: DeliveryWorker | undefined;
}

/**
 * The events module: history, webhooks with a durable outbox, and the MQTT
 * mirror, all fed by one bus subscription. Constructed by the plugin, started
 * and stopped by the lifecycle.
 */
export class EventsService {
  readonly history: EventHistory;
  readonly mirror: MqttMirror;
  private parts: Started | undefined;
  private mqttQueue: MqttQueue | undefined;
  private startError: string | null = null;
  private deliveryError: string | null = null;

  constructor(private readonly ctx: VigilContext) {
    this.history = new EventHistory(ctx.config.events.history_size);
    this.mirror = new MqttMirror(ctx.config.mqtt, ctx.config.events.enabled, ctx.log.child({ component: 'mqtt' }), packageVersion());
    registerBoxStats(this.mirror, ctx.metrics, packageVersion());
  }

  async start(): Promise<void> {
    const { config, log, bus } = this.ctx;
    const ev = config.events;
    // Subscribe first: if the store cannot open, the history still works and health says why.
    bus.subscribe(OWNER, (event) => this.onEvent(event));
    let store: EventsStore;
    try {
      store = openEventsStore(config.server.data_dir, this.ctx.storage);
    } catch (err) {
      this.startError = `cannot open ${config.server.data_dir}/events: ${(err as Error).message}`;
      throw err;
    }
    const restored = this.history.attach(store.history, log.child({ component: 'history' }));
    if (restored > 0) log.info({ restored }, 'event history from the last run restored');
    const webhooks = new WebhookStore(store);
    webhooks.load();
    const outbox = new Outbox(store, { logSize: ev.delivery_log_size, maxPending: ev.outbox_max_pending }, log.child({ component: 'outbox' }));
    const pending = outbox.load();
    let worker: DeliveryWorker | undefined;
    if (ev.webhooks_enabled) {
      try {
        worker = new DeliveryWorker(
          outbox,
          webhooks,
          {
            maxWorkers: ev.max_workers,
            timeoutMs: ev.delivery_timeout_ms,
            ca: trustedCAs(ev.ca_file),
            policy: {
              baseDelayMs: ev.retry_base_delay_ms,
              factor: ev.retry_factor,
              maxDelayMs: ev.retry_max_delay_ms,
              jitter: ev.retry_jitter,
              maxAttempts: ev.max_attempts,
            },
            userAgent: `Vigil/${packageVersion()}`,
          },
          log.child({ component: 'webhooks' }),
        );
        const { metrics } = this.ctx;
        if (metrics.enabled) worker.onSettled((_job, outcome) => metrics.deliveries.inc({ outcome: outcome.status === 'pending' ? 'retry' : outcome.status }));
        worker.onSettled((job, outcome) => this.reportProblem(job, outcome));
        worker.start();
      } catch (err) {
        // Deliveries wait in the outbox until the CA file is fixed; history and MQTT go on.
        this.deliveryError = (err as Error).message;
        worker = undefined;
        log.error({ err }, 'webhook delivery cannot start');
      }
    }
    this.parts = { store, webhooks, outbox, worker };
    if (config.mqtt.url) {
      this.mqttQueue = new MqttQueue(store, config.mqtt.queue_size, log.child({ component: 'mqtt-queue' }));
      const queued = this.mqttQueue.load();
      this.mirror.attachQueue(this.mqttQueue);
      if (queued > 0) log.info({ queued }, 'MQTT messages from the last run will be published after connect');
    }
    this.mirror.start();
    if (pending > 0) log.info({ pending }, 'webhook deliveries from the last run resume');
  }

  async stop(): Promise<void> {
    this.ctx.bus.unsubscribeOwner(OWNER);
    this.history.detach();
    const parts = this.parts;
    this.parts = undefined;
    await parts?.worker?.stop();
    await this.mirror.stop();
    if (parts) {
      await parts.store.root.committed;
      await parts.store.close();
    }
  }

  /** The one bus listener: history, then one outbox entry per subscribed webhook, then MQTT. */
  private onEvent(event: VigilEvent): void {
    this.history.push(event);
    const body = outboundBody(event, this.ctx.config.events.include_labels);
    const parts = this.parts;
    if (parts && this.ctx.config.events.webhooks_enabled) {
      let queued = false;
      for (const w of parts.webhooks.allSubscribers(event.type)) {
        // A disabled webhook keeps a record of what it missed, to be sent when it is enabled.
        if (w.enabled) {
          parts.outbox.enqueue(w.id, event, body);
          queued = true;
        } else parts.outbox.hold(w.id, event, body);
      }
      if (queued) parts.worker?.kick();
    }
    this.mirror.mirror(event, body);
  }

  /** Throws when the store is not open (start failed); routes turn that into a 503. */
  started(): Started {
    if (!this.parts) throw new Error(this.startError ?? 'events module not started');
    return this.parts;
  }

  outboxPending(): number {
    return this.parts?.outbox.pending ?? 0;
  }

  webhookCounts(): { enabled: number; disabled: number } {
    const w = this.parts?.webhooks;
    if (!w) return { enabled: 0, disabled: 0 };
    const disabled = w.disabledCount();
    return { enabled: w.size - disabled, disabled };
  }

  mqttQueueSize(): number {
    return this.mqttQueue?.size ?? 0;
  }

  mqttDropped(): number {
    return this.mqttQueue?.dropped ?? 0;
  }

  get worker(): DeliveryWorker | undefined {
    return this.parts?.worker;
  }

  async deleteWebhook(id: string): Promise<boolean> {
    const { webhooks, outbox } = this.started();
    if (!(await webhooks.remove(id))) return false;
    await outbox.removeWebhook(id);
    return true;
  }

  /** Queues a copy of a finished delivery as a new one (same event, same X-Event-ID). */
  redeliver(webhook: WebhookRecord, original: DeliveryRecord): DeliveryRecord {
    const { outbox, worker } = this.started();
    const record = outbox.enqueue(webhook.id, { id: original.event_id, type: original.event_type }, original.body);
    worker?.kick();
    return record;
  }

  /** Enables a webhook and queues what it missed while disabled, in the order it happened. */
  async enable(id: string): Promise<WebhookRecord | undefined> {
    const { webhooks, outbox, worker } = this.started();
    const record = await webhooks.setEnabled(id, true);
    if (!record) return undefined;
    // Held records are read back from LMDB: let the latest ones commit first.
    await outbox.settled();
    const n = outbox.release(id);
    if (n > 0) this.ctx.log.info({ webhook_id: id, replayed: n }, 'webhook enabled: sending the deliveries it missed');
    worker?.kick();
    return record;
  }

  /** Disables a webhook by hand: new events and what is queued are held until it is enabled. */
  async disable(id: string): Promise<WebhookRecord | undefined> {
    const { webhooks, outbox, worker } = this.started();
    const record = await webhooks.setEnabled(id, false, 'disabled by the operator');
    if (record && worker) worker.holdAll(id);
    else if (record) outbox.holdQueued(id, 'webhook disabled by the operator; held');
    return record;
  }

  /**
   * A delivery given up (or stopped by 410 Gone) is raised as system_error, so a receiver
   * of system_error hears about it. A failure to deliver such a report raises nothing more:
   * two dead receivers of system_error must not report each other forever.
   */
  private reportProblem(job: PendingJob, outcome: Outcome): void {
    const gone = outcome.status === 'held' && outcome.statusCode === 410;
    if (outcome.status !== 'failed' && !gone) return;
    if (job.eventType === 'system_error' && this.isDeliveryReport(job)) return;
    const message = gone
      ? `webhook ${job.webhookId} answered 410 Gone: disabled; its deliveries are held until it is enabled again`
      : `webhook ${job.webhookId}: delivery ${job.seq} of event ${job.eventId} (${job.eventType}) ${outcome.error ?? 'failed'}`;
    this.ctx.bus.emit('system_error', 'events', {
      module: 'events',
      message,
      webhook_id: job.webhookId,
      delivery_id: String(job.seq),
      event_id: job.eventId,
      event_type: job.eventType,
    });
  }

  private isDeliveryReport(job: PendingJob): boolean {
    const body = this.parts?.outbox.bodyOf(job);
    if (!body) return false;
    try {
      const event = JSON.parse(body) as VigilEvent<'system_error'>;
      return event.source === 'events' && typeof event.data.webhook_id === 'string';
    } catch {
      return false;
    }
  }

  /**
   * Operator feature: a test delivery of one subscribed type to one webhook,
   * through the outbox like any other. The event is marked `data.test: true`
   * and does not enter the history or MQTT.
   */
  sendTest(webhook: WebhookRecord, type: EventType): { event: VigilEvent; delivery: DeliveryRecord } {
    const { outbox, worker } = this.started();
    const data: Record<string, unknown> = { test: true, message: `test delivery to webhook ${webhook.id}` };
    if (type === 'face_matched' || type === 'watchlist_alert') Object.assign(data, { identity_id: 'test', label: 'test', similarity: 0, watchlist: 'test' });
    if (type === 'system_error') data.module = 'events';
    const event = { id: randomUUID(), type, timestamp: new Date().toISOString(), source: 'events', data, camera_id: null } as VigilEvent;
    const delivery = outbox.enqueue(webhook.id, event, outboundBody(event, this.ctx.config.events.include_labels));
    worker?.kick();
    return { event, delivery };
  }

  status(): ModuleReport {
    const ev = this.ctx.config.events;
    if (!this.parts) return { ok: false, detail: this.startError ?? 'events module not started' };
    const { webhooks, outbox, worker } = this.parts;
    const mqtt = this.mirror.status();
    const parts = [`history ${this.history.size}/${ev.history_size}`];
    let ok = mqtt.ok;
    if (!ev.webhooks_enabled) parts.push('webhooks off (events.webhooks_enabled: false)');
    else if (this.deliveryError) {
      ok = false;
      parts.push(`webhook delivery not running: ${this.deliveryError}; ${outbox.pending} pending`);
    } else {
      const disabled = webhooks.disabledCount();
      parts.push(
        `${webhooks.size} webhooks${disabled ? ` (${disabled} disabled by 410)` : ''}, ${outbox.pending} deliveries pending, ${worker?.delivered ?? 0} delivered and ${worker?.failed ?? 0} failed since start`,
      );
      if (outbox.overflowed) parts.push(`${outbox.overflowed} deliveries refused: outbox full`);
    }
    parts.push(mqtt.detail);
    return { ok, detail: parts.join('; '), ...(mqtt.degraded ? { degraded: mqtt.detail } : {}) };
  }
}
