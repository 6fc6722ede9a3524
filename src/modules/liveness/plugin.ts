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
    const { config, models, status, lifecycle } = app.vigil;
    if (!config.liveness.enabled) {
      status.setComponent('active_liveness', () => ({ loaded: false, reason: 'disabled (liveness.enabled: false)' }));
      await livenessRoutes(app, null);
      return;
    }
    const service = new LivenessService(app.vigil, app.faceService);
    app.decorate('liveness', service);
    lifecycle.add({
      name: 'liveness',
      start: async () => {
        await Promise.all(ACTIVE_LIVENESS_MODELS.map((m) => models.load(m)));
        service.start();
      },
      stop: () => service.stop(),
    });
    status.setComponent('active_liveness', modelComponent(models, ACTIVE_LIVENESS_MODELS));
    status.setModule('liveness', () => {
      const needed = [...ACTIVE_LIVENESS_MODELS, app.faceService.detectorName, app.faceService.recognizerName];
      const missing = needed.filter((m) => !models.status(m)?.loaded);
      if (missing.length > 0) {
        return { ok: false, detail: `models unavailable: ${missing.map((m) => `${m}: ${models.status(m)?.reason ?? 'not loaded yet'}`).join('; ')}` };
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
