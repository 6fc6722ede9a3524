import fp from 'fastify-plugin';
import { MODULE_NAMES } from '../../config/schema.js';
import { ConfigResponse, HealthResponse, ModelsResponse } from './schema.js';

/** /api/v1/admin: health, model status and the active configuration, as the spec shows them. */
export default fp(
  async (app) => {
    const { status, config } = app.vigil;
    app.get(
      '/api/v1/admin/health',
      { schema: { tags: ['admin'], summary: 'Module health', response: { 200: HealthResponse } } },
      async () => status.health(),
    );
    app.get(
      '/api/v1/admin/models',
      { schema: { tags: ['admin'], summary: 'Model and component load status', response: { 200: ModelsResponse } } },
      async () => status.allComponents(),
    );
    app.get(
      '/api/v1/admin/config',
      { schema: { tags: ['admin'], summary: 'Active settings of the seven modules', response: { 200: ConfigResponse } } },
      async () => Object.fromEntries(MODULE_NAMES.map((m) => [m, config[m]])),
    );
  },
  { name: 'vigil-admin', dependencies: ['vigil-core'] },
);
