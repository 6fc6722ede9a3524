import fp from 'fastify-plugin';
import { modelComponent } from '../../core/status-board.js';
import { DEMOGRAPHICS_MODEL } from './demographics.js';
import { DETECTOR_MODELS, LIVENESS_MODELS, RECOGNIZER_MODELS } from './model-names.js';

/** Face module: loads the configured detector, recognizer and passive-liveness models at start. */
export default fp(
  async (app) => {
    const { config, models, status, lifecycle } = app.vigil;
    const detector = DETECTOR_MODELS[config.face.detector];
    const recognizer = RECOGNIZER_MODELS[config.face.recognizer];
    const liveness = config.face.enable_liveness ? LIVENESS_MODELS : [];
    const demographics = config.face.enable_demographics ? [DEMOGRAPHICS_MODEL] : [];

    lifecycle.add({
      name: 'face-models',
      start: async () => {
        await Promise.all([detector, recognizer, ...liveness, ...demographics].map((m) => models.load(m)));
      },
    });
    status.setComponent('face_detector', modelComponent(models, [detector]));
    status.setComponent('face_recognizer', modelComponent(models, [recognizer]));
    status.setComponent(
      'liveness',
      config.face.enable_liveness ? modelComponent(models, LIVENESS_MODELS) : () => ({ loaded: false, reason: 'disabled (face.enable_liveness: false)' }),
    );
    status.setComponent(
      'demographics',
      config.face.enable_demographics
        ? modelComponent(models, [DEMOGRAPHICS_MODEL])
        : () => ({ loaded: false, reason: 'disabled (face.enable_demographics: false)' }),
    );
  },
  { name: 'vigil-face', dependencies: ['vigil-core'] },
);
