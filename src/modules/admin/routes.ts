import { MODULE_NAMES } from '../../config/schema.js';
import { buildCommit } from '../../core/build-info.js';
import { defineModule } from '../../core/module.js';
import { packageVersion } from '../../core/package-root.js';
import { modelManifest } from '../../runtime/model-manifest.js';
import { ConfigResponse, HealthResponse, HwProfileResponse, ModelsResponse, VersionResponse } from './schema.js';

/** /api/v1/admin: health, model status, the active configuration and the build. Always on. */
export default defineModule({
  name: 'admin',
  routes: (app) => {
    const { status, config, models } = app.vigil;
    app.get(
      '/api/v1/admin/health',
      {
        schema: {
          tags: ['admin'],
          summary: 'Module health: HTTP 200 when healthy, 503 (same body) when an enabled module failed',
          response: { 200: HealthResponse, 503: HealthResponse },
        },
      },
      async (_req, reply) => {
        const health = status.health();
        // Load balancers and orchestrators read the status code, not the body.
        return reply.status(health.healthy ? 200 : 503).send(health);
      },
    );
    app.get('/api/v1/admin/models', { schema: { tags: ['admin'], summary: 'Model and component load status', response: { 200: ModelsResponse } } }, async () => status.allComponents());
    app.get('/api/v1/admin/config', { schema: { tags: ['admin'], summary: 'Active settings of the seven modules', response: { 200: ConfigResponse } } }, async () =>
      Object.fromEntries(MODULE_NAMES.map((m) => [m, config[m]])),
    );
    app.get('/api/v1/admin/version', { schema: { tags: ['admin'], summary: 'Version, commit and the model files (sha256, licence) of this build', response: { 200: VersionResponse } } }, async () => ({
      name: 'vigil',
      version: packageVersion(),
      commit: await buildCommit(),
      node: process.version,
      models: [...modelManifest().values()].map((m) => ({
        name: m.name,
        file: m.file,
        sha256: m.sha256,
        license: m.license,
        loaded: models.status(m.name)?.loaded === true,
      })),
    }));
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
});
