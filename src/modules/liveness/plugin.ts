import { defineModule } from '../../core/module.js';
import { modelComponent } from '../../core/status-board.js';
import { BLENDSHAPE_MODEL, LANDMARK_MODEL } from './face-measurer.js';
import { LivenessService } from './liveness-service.js';
import { livenessRoutes } from './routes.js';

/** Dense landmarks (head pose, eyes, mouth) and the blendshapes that read expressions from them. */
export const ACTIVE_LIVENESS_MODELS = [LANDMARK_MODEL, BLENDSHAPE_MODEL];

declare module '../../core/module.js' {
  interface ModuleServices {
    liveness: LivenessService;
  }
}

/**
 * Liveness module: loads the active-liveness models, serves the four session endpoints and
 * runs the sweep that applies challenge timeouts and session_ttl. Face detection, embeddings
 * and passive liveness come from the face service.
 */
export default defineModule({
  name: 'liveness',
  dependencies: ['face'],
  eventTypes: ['liveness_passed', 'liveness_failed'],
  service: ({ app, ctx }) => new LivenessService(ctx, app.face),
  // Loaded through the registry and opened in every worker of the inference pool, next to the face models.
  models: () => ACTIVE_LIVENESS_MODELS.map((name) => ({ name })),
  start: (service) => service.start(),
  stop: (service) => service.stop(),
  components: (_service, { ctx: { models } }) => ({ active_liveness: modelComponent(models, ACTIVE_LIVENESS_MODELS) }),
  health: (service, { app, ctx: { config, models }, startFailure }) => {
    if (startFailure) return { ok: false, detail: `liveness did not start: ${startFailure}` };
    const needed = [...ACTIVE_LIVENESS_MODELS, app.face.detectorName, app.face.recognizerName];
    const missing = needed.filter((m) => !models.status(m)?.loaded);
    if (missing.length > 0) {
      const why = missing.map((m) => `${m}: ${models.status(m)?.reason ?? 'not loaded yet'}`).join('; ');
      return { ok: false, detail: `models unavailable: ${why}` };
    }
    const passive = config.face.enable_liveness ? 'passive liveness on every frame' : 'passive liveness OFF (face.enable_liveness: false): spoofs are caught only by the challenges';
    return { ok: true, detail: `${service.store.size} sessions held; ${passive}` };
  },
  routes: (scope, service) => livenessRoutes(scope, service),
});
