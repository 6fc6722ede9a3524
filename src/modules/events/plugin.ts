import fp from 'fastify-plugin';

/** Events module: the bus itself lives in the core context; this reports it. */
export default fp(
  async (app) => {
    const { bus, status } = app.vigil;
    status.setComponent('event_bus', () => ({ loaded: true, reason: `${bus.listenerCount()} listeners` }));
  },
  { name: 'vigil-events', dependencies: ['vigil-core'] },
);
