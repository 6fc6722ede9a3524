import { defineModule } from '../../core/module.js';
import { EventsService } from './events-service.js';
import { eventsRoutes } from './routes.js';
import { registerEventsMetrics } from './events-metrics.js';
import { eventStreamRoute } from './event-stream.js';

declare module '../../core/module.js' {
  interface ModuleServices {
    /** The history, webhook deliveries and the MQTT mirror (`app.events.mirror`: retained state, HA discovery; a no-op while MQTT is off). */
    events: EventsService;
  }
}

/**
 * Events module: the history (in memory, written through to LMDB), webhooks with a durable LMDB outbox, and the
 * MQTT mirror, fed by one subscription to the core bus.
 */
export default defineModule({
  name: 'events',
  eventTypes: ['system_error'],
  service: ({ ctx }) => {
    const service = new EventsService(ctx);
    registerEventsMetrics(ctx.metrics, service);
    return service;
  },
  start: (service) => service.start(),
  stop: (service) => service.stop(),
  afterStart: (service) => service.mirror.appReady(),
  components: (_service, { ctx: { bus } }) => ({ event_bus: () => ({ loaded: true, reason: `${bus.listenerCount()} listeners` }) }),
  health: (service) => service.status(),
  routes: (scope, service) => {
    eventsRoutes(scope, service);
    eventStreamRoute(scope);
  },
});
