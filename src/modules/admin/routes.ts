import fp from 'fastify-plugin';
import { MODULE_NAMES } from '../../config/schema.js';
import { ConfigResponse, HealthResponse, HwProfileResponse, ModelsResponse } from './schema.js';

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
    app.get(
      '/api/v1/admin/hw-profile',
      {
        schema: {
          tags: ['admin'],
          summary: 'The hardware profile in use (execution providers, ffmpeg decoder) and how it was chosen',
          response: { 200: HwProfileResponse },
        },
      },
      async () => {
        const p = app.vigil.profile;
        return {
          name: p.name,
          description: p.description,
          detected_by: p.detected_by ?? null,
          execution_providers: p.execution_providers,
          intra_op_threads: p.intra_op_threads,
          ffmpeg: p.ffmpeg,
        };
      },
    );
  },
  { name: 'vigil-admin', dependencies: ['vigil-core'] },
);
