import fp from 'fastify-plugin';
import { modelComponent } from '../../core/status-board.js';
import { BLENDSHAPE_MODEL, LANDMARK_MODEL } from './face-measurer.js';
import { LivenessService } from './liveness-service.js';
import { livenessRoutes } from './routes.js';

/** Dense landmarks (head pose, eyes, mouth) and the blendshapes that read expressions from them. */
export const ACTIVE_LIVENESS_MODELS = [LANDMARK_MODEL, BLENDSHAPE_MODEL];

/**
 * Liveness module: loads the active-liveness models, serves the four session endpoints and
 * runs the sweep that applies challenge timeouts and session_ttl. Face detection, embeddings
 * and passive liveness come from the face service.
 */
export default fp(
  async (app) => {
    const { config, models, status, lifecycle, log } = app.vigil;
    if (!config.liveness.enabled) {
      status.setComponent('active_liveness', () => ({ loaded: false, reason: 'disabled (liveness.enabled: false)' }));
      await livenessRoutes(app, null);
      return;
    }
    const service = new LivenessService(app.vigil, app.faceService);
    app.decorate('liveness', service);
    const openFailures = new Map<string, string>();
    lifecycle.add({
      name: 'liveness',
      start: async () => {
        // Loaded through the registry (sha256, warm-up, /admin/models) and opened in every
        // worker of the inference pool, next to the face models.
        await Promise.all(
          ACTIVE_LIVENESS_MODELS.map((m) =>
            app.faceService.openModel(m).catch((err: unknown) => {
              openFailures.set(m, `inference worker could not open it: ${(err as Error).message}`);
              log.error({ err, model: m }, 'liveness model failed to open in the inference worker');
            }),
          ),
        );
        service.start();
      },
      stop: () => service.stop(),
    });
    status.setComponent('active_liveness', modelComponent(models, ACTIVE_LIVENESS_MODELS));
    status.setModule('liveness', () => {
      const failed = lifecycle.failures.get('liveness');
      if (failed) return { ok: false, detail: `liveness did not start: ${failed}` };
      const needed = [...ACTIVE_LIVENESS_MODELS, app.faceService.detectorName, app.faceService.recognizerName];
      const missing = needed.filter((m) => !models.status(m)?.loaded || openFailures.has(m));
      if (missing.length > 0) {
        const why = missing.map((m) => `${m}: ${openFailures.get(m) ?? models.status(m)?.reason ?? 'not loaded yet'}`).join('; ');
        return { ok: false, detail: `models unavailable: ${why}` };
      }
      const passive = config.face.enable_liveness ? 'passive liveness on every frame' : 'passive liveness OFF (face.enable_liveness: false): spoofs are caught only by the challenges';
      return { ok: true, detail: `${service.store.size} sessions held; ${passive}` };
    });
    await livenessRoutes(app, service);
  },
  { name: 'vigil-liveness', dependencies: ['vigil-core', 'vigil-face'] },
);

declare module 'fastify' {
  interface FastifyInstance {
    liveness: LivenessService;
  }
}
