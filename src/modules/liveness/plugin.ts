import fp from 'fastify-plugin';
import { modelComponent } from '../../core/status-board.js';

/** Dense landmarks (head pose, eyes, mouth) and the blendshapes that read expressions from them. */
export const ACTIVE_LIVENESS_MODELS = ['face_landmarks_v2_478', 'face_blendshapes'];

/** Liveness module: loads the active-liveness models at start when enabled. */
export default fp(
  async (app) => {
    const { config, models, status, lifecycle } = app.vigil;
    if (!config.liveness.enabled) {
      status.setComponent('active_liveness', () => ({ loaded: false, reason: 'disabled (liveness.enabled: false)' }));
      return;
    }
    lifecycle.add({
      name: 'liveness-models',
      start: async () => {
        await Promise.all(ACTIVE_LIVENESS_MODELS.map((m) => models.load(m)));
      },
    });
    status.setComponent('active_liveness', modelComponent(models, ACTIVE_LIVENESS_MODELS));
  },
  { name: 'vigil-liveness', dependencies: ['vigil-core'] },
);
