import fp from 'fastify-plugin';
import { EventsService } from './events-service.js';
import type { MqttPublisher } from './mqtt-mirror.js';
import { eventsRoutes } from './routes.js';
import { registerEventsMetrics } from './events-metrics.js';
import { eventStreamRoute } from './event-stream.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The MQTT mirror's publisher (retained state, HA discovery); a no-op while MQTT is off. */
    mqtt: MqttPublisher;
    /** The events module (tests and the benchmark observe deliveries through it). */
    events: EventsService;
  }
}

/**
 * Events module: the history (in memory, written through to LMDB), webhooks with a durable LMDB outbox, and the
 * MQTT mirror, fed by one subscription to the core bus.
 */
export default fp(
  async (app) => {
    const { bus, status, lifecycle, config } = app.vigil;
    const service = new EventsService(app.vigil);
    app.decorate('events', service);
    registerEventsMetrics(app.vigil.metrics, service);
    app.decorate('mqtt', service.mirror as MqttPublisher);
    status.setComponent('event_bus', () => ({ loaded: true, reason: `${bus.listenerCount()} listeners` }));
    if (config.events.enabled) {
      lifecycle.add({ name: 'events', start: () => service.start(), stop: () => service.stop() });
      lifecycle.whenStarted(() => service.mirror.appReady());
    }
    status.setModule('events', () => service.status());
    eventsRoutes(app, service);
    eventStreamRoute(app);
  },
  { name: 'vigil-events', dependencies: ['vigil-core'] },
);
