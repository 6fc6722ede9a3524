import type { Metrics } from '../../core/metrics.js';
import type { EventsService } from './events-service.js';

/** Outbox and MQTT figures, read at scrape time; no labels beyond fixed words. */
export function registerEventsMetrics(metrics: Metrics, service: EventsService): void {
  if (!metrics.enabled) return;
  metrics.gauge('vigil_webhook_outbox_pending', 'Webhook deliveries waiting in the durable outbox (queued or in flight).', [], (set) => {
    set({}, service.outboxPending());
  });
  metrics.gauge('vigil_webhooks', 'Registered webhooks by state (enabled, disabled).', ['state'], (set) => {
    const { enabled, disabled } = service.webhookCounts();
    set({ state: 'enabled' }, enabled);
    set({ state: 'disabled' }, disabled);
  });
  metrics.gauge('vigil_mqtt_connected', '1 while the MQTT mirror is connected to its broker, 0 otherwise (absent with MQTT off).', [], (set) => {
    if (service.mirror.enabled) set({}, service.mirror.connected ? 1 : 0);
  });
  metrics.gauge('vigil_mqtt_queue_depth', 'Event messages waiting for the broker (durable queue, including in flight).', [], (set) => {
    if (service.mirror.enabled) set({}, service.mqttQueueSize());
  });
  metrics.counterFrom('vigil_mqtt_dropped_total', 'Event messages dropped because the MQTT queue was full (mqtt.queue_size).', [], (set) => {
    if (service.mirror.enabled) set({}, service.mqttDropped());
  });
  metrics.counterFrom('vigil_mqtt_published_total', 'Event messages the broker acknowledged.', [], (set) => {
    if (service.mirror.enabled) set({}, service.mirror.published);
  });
}
