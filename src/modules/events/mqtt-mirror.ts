import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import type { VigilConfig } from '../../config/schema.js';
import type { VigilEvent } from '../../core/event-types.js';
import { MqttCommands, type CommandHandler } from './mqtt-commands.js';
import type { MqttQueue } from './mqtt-queue.js';
import { HaDiscovery } from './mqtt-discovery.js';
import { isValidStateSuffix, topicMap, type TopicMap } from './mqtt-topics.js';
import { trustedCAs } from './tls-trust.js';

/**
 * What other modules use to publish over the mirror's connection (decorated as
 * `app.mqtt`). Nothing here throws; with MQTT off every call is a no-op.
 */
export interface MqttPublisher {
  readonly enabled: boolean;
  readonly connected: boolean;
  readonly topics: TopicMap;
  /**
   * Publishes `<prefix>/<topicSuffix>` at QoS 1 (objects as JSON). Retained state
   * (the default) is latest-wins: kept in memory, published now when connected
   * and again on every reconnect. Not retained: sent only when connected.
   */
  publishState(topicSuffix: string, payload: string | object, opts?: { retain?: boolean }): void;
  /**
   * Registers a Home Assistant discovery config (e.g. a count sensor) published
   * retained on every connect when mqtt.discovery is on; device, unique_id and
   * availability are filled in.
   */
  publishDiscovery(component: string, objectId: string, config: Record<string, unknown>): void;
  /** Removes a discovery config (empty retained payload): Home Assistant deletes the entity. */
  removeDiscovery(component: string, objectId: string): void;
  /**
   * Handles `<prefix>/<filter>` commands when mqtt.commands is on (`+` matches one level);
   * the handler's answer is published on `<prefix>/commands/result`. No-op otherwise.
   */
  onCommand(filter: string, handler: CommandHandler): void;
  /** Adds a section to the box statistics published on `<prefix>/stats`. */
  statsSource(key: string, read: () => unknown): void;
  /** The full topic of a state suffix, for discovery configs. */
  stateTopic(suffix: string): string;
}

export type { CommandHandler };

type MqttSettings = VigilConfig['mqtt'];

/** In-flight QoS 1 publishes handed to the client at once. */
const WINDOW = 100;
const STOP_WAIT_MS = 1500;
/** How long after connecting retained camera state is collected before stale topics are cleared. */
const STALE_SWEEP_MS = 3000;

/** The URL without credentials, for logs and health. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * Mirrors every event to MQTT. Connection handling is ours, not mqtt.js's: each
 * connection is one client; when it closes, unacknowledged messages go back to
 * the durable queue and a new client is made after a doubling, jittered delay.
 */
export class MqttMirror implements MqttPublisher {
  readonly enabled: boolean;
  readonly topics: TopicMap;
  private client: MqttClient | undefined;
  private generation = 0;
  private running = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private startError: string | null = null;
  private lastError: string | null = null;
  private disconnectedSince: number | null = null;
  private readonly states = new Map<string, string>();
  private readonly discovery: HaDiscovery;
  private readonly commands: MqttCommands;
  private readonly stats = new Map<string, () => unknown>();
  /** Retained topics the broker replayed since connect (see sweepStale). */
  private retainedSeen: Set<string> | undefined;
  private appStarted = false;
  private statsTimer: NodeJS.Timeout | undefined;
  private readonly clientId: string;
  published = 0;

  private queue: MqttQueue | undefined;

  /** `active` false (events.enabled: false) keeps the mirror off even with a url. */
  constructor(
    private readonly settings: MqttSettings,
    active: boolean,
    private readonly log: Logger,
    version: string,
  ) {
    this.enabled = active && settings.url !== '';
    this.topics = topicMap(settings.topic_prefix);
    this.clientId = settings.client_id || `vigil-${hostname()}`;
    this.commands = new MqttCommands(settings.topic_prefix, log);
    this.discovery = new HaDiscovery(settings.discovery_prefix, this.clientId, this.topics, version);
  }

  /** The durable queue lives in the events store, which opens at start. */
  attachQueue(queue: MqttQueue): void {
    this.queue = queue;
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  start(): void {
    if (!this.enabled) return;
    this.running = true;
    if (this.settings.stats_interval_seconds > 0) {
      this.statsTimer = setInterval(() => {
        if (this.connected) this.sendDirect(this.topics.state('stats'), JSON.stringify(this.statsPayload()), false);
      }, this.settings.stats_interval_seconds * 1000);
      this.statsTimer.unref();
    }
    this.disconnectedSince = Date.now();
    let options: IClientOptions;
    try {
      options = this.clientOptions();
    } catch (err) {
      // A broken password or CA file: say so in health, keep queueing, do not take the daemon down.
      this.startError = (err as Error).message;
      this.log.error({ err }, 'MQTT mirror cannot start');
      return;
    }
    this.connectWith(options);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.statsTimer);
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    this.generation++;
    if (!client) return;
    if (client.connected) {
      // A clean stop says offline itself; the broker drops the will on DISCONNECT.
      await withTimeout(client.publishAsync(this.topics.availability, 'offline', { qos: 1, retain: true }), STOP_WAIT_MS).catch(() => undefined);
      await withTimeout(client.endAsync(false), STOP_WAIT_MS).catch(() => undefined);
    }
    await client.endAsync(true).catch(() => undefined);
    this.queue?.requeueInflight();
  }

  /** Queues the event for `<prefix>/events/<type>` and, with a camera, the camera topic. */
  mirror(event: VigilEvent, body: string): void {
    if (!this.enabled || !this.queue) return;
    this.queue.push(this.topics.event(event.type), body);
    if (event.camera_id !== null) this.queue.push(this.topics.cameraEvent(event.camera_id, event.type), body);
    this.pump();
  }

  publishState(topicSuffix: string, payload: string | object, opts: { retain?: boolean } = {}): void {
    if (!this.enabled) return;
    if (!isValidStateSuffix(topicSuffix)) {
      this.log.warn({ topicSuffix }, 'publishState: invalid topic suffix ignored');
      return;
    }
    const topic = this.topics.state(topicSuffix);
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const retain = opts.retain ?? true;
    if (retain) this.states.set(topic, text);
    if (this.connected) this.sendDirect(topic, text, retain);
  }

  removeDiscovery(component: string, objectId: string): void {
    if (!this.enabled || !this.settings.discovery) return;
    this.discovery.remove(component, objectId, this.connected, this.send);
  }

  onCommand(filter: string, handler: CommandHandler): void {
    if (!this.enabled || !this.settings.commands) return;
    this.commands.add(filter, handler);
    if (this.connected) this.client?.subscribe(this.topics.state(filter), { qos: 1 });
  }

  statsSource(key: string, read: () => unknown): void {
    this.stats.set(key, read);
  }

  stateTopic(suffix: string): string {
    return this.topics.state(suffix);
  }

  /** The box statistics (Frigate's stats topic is the model): published every stats_interval_seconds. */
  statsPayload(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, read] of this.stats) {
      try {
        out[key] = read();
      } catch (err) {
        this.log.debug({ err, key }, 'stats source threw');
      }
    }
    return out;
  }

  publishDiscovery(component: string, objectId: string, config: Record<string, unknown>): void {
    if (!this.enabled || !this.settings.discovery) return;
    this.discovery.publish(component, objectId, config, this.connected, this.send);
  }

  /** ok false: MQTT cannot work as configured; degraded: the broker is away (it will reconnect). */
  status(): { ok: boolean; detail: string; degraded?: boolean } {
    const url = redactUrl(this.settings.url);
    if (!this.enabled) return { ok: true, detail: this.settings.url ? 'mqtt off (events module disabled)' : 'mqtt off (mqtt.url is empty)' };
    const queued = this.queue?.size ?? 0;
    const dropped = this.queue?.dropped ? `, ${this.queue.dropped} dropped (queue full)` : '';
    if (this.startError) return { ok: false, detail: `mqtt not started: ${this.startError}; ${queued} messages queued${dropped}` };
    if (this.connected) return { ok: true, detail: `mqtt connected to ${url}, ${queued} messages queued${dropped}` };
    const since = this.disconnectedSince ? ` since ${new Date(this.disconnectedSince).toISOString()}` : '';
    return {
      ok: true,
      degraded: true,
      detail: `mqtt disconnected from ${url}${since}${this.lastError ? ` (${this.lastError})` : ''}; ${queued} messages queued${dropped}, reconnecting`,
    };
  }

  private clientOptions(): IClientOptions {
    const s = this.settings;
    const options: IClientOptions = {
      clientId: this.clientId,
      clean: true,
      keepalive: s.keepalive_seconds,
      reconnectPeriod: 0,
      connectTimeout: 10_000,
      will: { topic: this.topics.availability, payload: Buffer.from('offline'), qos: 1, retain: true },
    };
    if (s.username) options.username = s.username;
    if (s.password_file) {
      try {
        options.password = readFileSync(s.password_file, 'utf8').replace(/\r?\n$/, '');
      } catch (err) {
        throw new Error(`cannot read mqtt.password_file ${s.password_file}: ${(err as Error).message}`);
      }
    }
    if (/^(mqtts|wss):/i.test(s.url)) {
      options.ca = trustedCAs(s.ca_file);
      options.rejectUnauthorized = s.reject_unauthorized;
    }
    return options;
  }

  private connectWith(options: IClientOptions): void {
    if (!this.running) return;
    const gen = ++this.generation;
    let client: MqttClient;
    try {
      client = connect(this.settings.url, options);
    } catch (err) {
      // e.g. an unknown protocol in mqtt.url: report it, keep queueing, keep the daemon up.
      this.startError = `cannot connect to ${redactUrl(this.settings.url)}: ${(err as Error).message}`;
      this.log.error({ err }, 'MQTT mirror cannot start');
      return;
    }
    this.client = client;
    let lost = false;
    client.on('connect', () => {
      if (gen !== this.generation) return;
      this.failures = 0;
      this.lastError = null;
      this.disconnectedSince = null;
      this.log.info({ url: redactUrl(this.settings.url), queued: this.queue?.size ?? 0 }, 'MQTT connected');
      this.sendDirect(this.topics.availability, 'online', true);
      if (this.settings.discovery) this.discovery.announce(this.send);
      for (const [topic, text] of this.states) this.sendDirect(topic, text, true);
      if (this.commands.size > 0) client.subscribe(this.commands.filters(), { qos: 1 });
      if (this.appStarted) this.sweepStale(client, gen);
      this.sendDirect(this.topics.state('stats'), JSON.stringify(this.statsPayload()), false);
      this.pump();
    });
    client.on('message', (topic, payload, packet) => {
      if (gen !== this.generation) return;
      if (packet.retain) {
        this.retainedSeen?.add(topic);
        return;
      }
      // A retained command would run again on every connect: only live ones run.
      void this.commands.run(topic, payload.toString('utf8')).then((result) => {
        if (result) this.sendDirect(this.topics.state('commands/result'), JSON.stringify(result), false);
      });
    });
    client.on('error', (err) => {
      if (gen === this.generation) this.lastError = err.message;
    });
    const onLost = () => {
      if (lost || gen !== this.generation) return;
      lost = true;
      this.disconnectedSince ??= Date.now();
      this.queue?.requeueInflight();
      client.end(true);
      if (!this.running) return;
      const delay = this.backoff();
      this.log.warn({ error: this.lastError, retry_ms: delay, queued: this.queue?.size ?? 0 }, 'MQTT connection lost; reconnecting');
      this.reconnectTimer = setTimeout(() => this.connectWith(options), delay);
    };
    client.on('close', onLost);
    client.on('end', onLost);
  }

  private backoff(): number {
    const { reconnect_min_ms: min, reconnect_max_ms: max } = this.settings;
    const nominal = Math.min(max, min * 2 ** this.failures);
    this.failures = Math.min(this.failures + 1, 30);
    return Math.round(nominal * (0.8 + 0.4 * Math.random()));
  }

  /** Hands queued event messages to the client, at most WINDOW awaiting PUBACK. */
  private pump(): void {
    const client = this.client;
    const queue = this.queue;
    if (!client || !queue || !client.connected) return;
    const gen = this.generation;
    while (queue.inflightCount < WINDOW) {
      const msg = queue.take();
      if (!msg) break;
      client.publish(msg.topic, msg.payload, { qos: 1 }, (err) => {
        // A replaced connection already put its in-flight messages back in the queue.
        if (gen !== this.generation) return;
        if (err) {
          this.lastError = err.message;
          return;
        }
        queue.ack(msg.seq);
        this.published++;
        this.pump();
      });
    }
  }

  private readonly send = (topic: string, payload: string, retain: boolean): void => this.sendDirect(topic, payload, retain);

  private sendDirect(topic: string, payload: string, retain: boolean): void {
    this.client?.publish(topic, payload, { qos: 1, retain }, (err) => {
      if (err) this.log.debug({ err, topic }, 'MQTT publish failed');
    });
  }

  /**
   * Retained camera state left by an earlier run (a camera deleted while the daemon was
   * down, or before a crash) is cleared: for a few seconds after connecting, the broker's
   * retained copies under <prefix>/cameras/ are collected, and those this run does not
   * publish get an empty retained payload. Only once every module has started, so the
   * cameras this run restores have republished their own state by then.
   */
  /** Every module has started: what is not republished by now is stale (see sweepStale). */
  appReady(): void {
    this.appStarted = true;
    if (this.client?.connected) this.sweepStale(this.client, this.generation);
  }

  private sweepStale(client: MqttClient, gen: number): void {
    const filters = [this.topics.state('cameras/+/status'), this.topics.state('cameras/+/counts/+')];
    this.retainedSeen = new Set();
    client.subscribe(filters, { qos: 1 });
    const timer = setTimeout(() => {
      const seen = this.retainedSeen;
      this.retainedSeen = undefined;
      if (gen !== this.generation || !seen) return;
      client.unsubscribe(filters);
      for (const topic of seen) {
        if (this.states.has(topic)) continue;
        this.log.info({ topic }, 'clearing retained state of a camera or rule this run does not have');
        this.sendDirect(topic, '', true);
      }
    }, STALE_SWEEP_MS);
    timer.unref();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
