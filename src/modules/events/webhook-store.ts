import { randomUUID } from 'node:crypto';
import type { EventType } from '../../core/event-types.js';
import type { EventsStore, WebhookRecord } from './store.js';

/** ISO 8601 with an explicit UTC offset, as the spec's Webhook.created_at says. */
export function isoWithOffset(date = new Date()): string {
  return date.toISOString().replace('Z', '+00:00');
}

/**
 * Registered webhooks: LMDB is the truth, a Map mirrors it for the hot path
 * (every emitted event looks up its subscribers). Writes go through both.
 */
export class WebhookStore {
  private readonly byId = new Map<string, WebhookRecord>();

  constructor(private readonly store: EventsStore) {}

  load(): void {
    this.byId.clear();
    for (const { value } of this.store.webhooks.getRange()) this.byId.set(value.id, value);
  }

  async create(input: { url: string; event_types: EventType[]; secret?: string }): Promise<WebhookRecord> {
    const record: WebhookRecord = {
      id: randomUUID(),
      url: input.url,
      event_types: [...new Set(input.event_types)],
      created_at: isoWithOffset(),
      secret: input.secret ?? null,
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
    };
    // Answer only once the registration is on disk: a 200 promises it survives a restart.
    await this.store.webhooks.put(record.id, record);
    this.byId.set(record.id, record);
    return record;
  }

  get(id: string): WebhookRecord | undefined {
    return this.byId.get(id);
  }

  list(): WebhookRecord[] {
    return [...this.byId.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  async remove(id: string): Promise<boolean> {
    if (!this.byId.delete(id)) return false;
    await this.store.webhooks.remove(id);
    return true;
  }

  async setEnabled(id: string, enabled: boolean, reason: string | null = null): Promise<WebhookRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    const next: WebhookRecord = enabled
      ? { ...current, enabled: true, disabled_reason: null, disabled_at: null }
      : { ...current, enabled: false, disabled_reason: reason, disabled_at: isoWithOffset() };
    this.byId.set(id, next);
    await this.store.webhooks.put(id, next);
    return next;
  }

  /** Replaces url, event types or secret (validated by the route); unknown id: undefined. */
  async update(id: string, patch: { url?: string; event_types?: EventType[]; secret?: string | null }): Promise<WebhookRecord | undefined> {
    const current = this.byId.get(id);
    if (!current) return undefined;
    const next: WebhookRecord = {
      ...current,
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.event_types !== undefined ? { event_types: [...new Set(patch.event_types)] } : {}),
      ...(patch.secret !== undefined ? { secret: patch.secret } : {}),
    };
    await this.store.webhooks.put(id, next);
    this.byId.set(id, next);
    return next;
  }

  /** Webhooks subscribed to `type`, enabled or not (a disabled one holds its deliveries). */
  allSubscribers(type: EventType): WebhookRecord[] {
    const out: WebhookRecord[] = [];
    for (const w of this.byId.values()) if (w.event_types.includes(type)) out.push(w);
    return out;
  }

  get size(): number {
    return this.byId.size;
  }

  disabledCount(): number {
    let n = 0;
    for (const w of this.byId.values()) if (!w.enabled) n++;
    return n;
  }
}
