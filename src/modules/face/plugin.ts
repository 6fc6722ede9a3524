import fp from 'fastify-plugin';
import { modelComponent } from '../../core/status-board.js';
import { FaceService } from './face-service.js';
import { DETECTOR_MODELS, LIVENESS_MODELS, RECOGNIZER_MODELS } from './model-names.js';
import { faceRoutes } from './routes.js';

/** Face module: loads the configured detector, recognizer and passive-liveness models at start, serves /detect and /verify. */
export default fp(
  async (app) => {
    const { config, models, status, lifecycle } = app.vigil;
    const detector = DETECTOR_MODELS[config.face.detector];
    const recognizer = RECOGNIZER_MODELS[config.face.recognizer];
    const liveness = config.face.enable_liveness ? LIVENESS_MODELS : [];

    lifecycle.add({
      name: 'face-models',
      start: async () => {
        await Promise.all([detector, recognizer, ...liveness].map((m) => models.load(m)));
      },
    });
    status.setComponent('face_detector', modelComponent(models, [detector]));
    status.setComponent('face_recognizer', modelComponent(models, [recognizer]));
    status.setComponent(
      'liveness',
      config.face.enable_liveness ? modelComponent(models, LIVENESS_MODELS) : () => ({ loaded: false, reason: 'disabled (face.enable_liveness: false)' }),
    );
    status.setComponent('demographics', () => ({
      loaded: false,
      reason: 'no age/gender model is installed; the face result carries demographics: null',
    }));
    // Healthy when every model the configuration asks for is loaded (demographics is optional and absent).
    status.setModule('face', () => {
      const missing = [detector, recognizer, ...liveness].filter((m) => !models.status(m)?.loaded);
      if (missing.length > 0) {
        const why = missing.map((m) => `${m}: ${models.status(m)?.reason ?? 'not loaded yet'}`).join('; ');
        return { ok: false, detail: `models unavailable: ${why}` };
      }
      return { ok: true, detail: `detector ${detector}, recognizer ${recognizer}, passive liveness ${liveness.length ? 'on' : 'off'}; demographics unavailable (no model)` };
    });

    app.decorate('faceService', new FaceService(models, config));
    await faceRoutes(app);
  },
  { name: 'vigil-face', dependencies: ['vigil-core'] },
);
