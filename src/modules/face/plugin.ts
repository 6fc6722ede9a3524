import fp from 'fastify-plugin';
import { modelComponent } from '../../core/status-board.js';
import { DEMOGRAPHICS_MODEL } from './demographics.js';
import { FaceService } from './face-service.js';
import { DETECTOR_MODELS, LIVENESS_MODELS, RECOGNIZER_MODELS } from './model-names.js';
import { faceRoutes } from './routes.js';
import { describeCalibration } from './score-calibration.js';
import type { ModelRegistry } from '../../runtime/model-registry.js';

/** One line: is every model of the active face stack licensed for commercial use, and which are not. */
function commercialNote(models: ModelRegistry, active: string[], profile: string): string {
  const statuses = active.map((m) => models.status(m)).filter((s) => s !== undefined);
  const blocked = statuses.filter((s) => !s.commercial_use);
  if (blocked.length === 0) return `face stack cleared for commercial use (face.profile ${profile}): ${statuses.map((s) => s.name).join(', ')} all carry permissive licences (each model's license below and under face_recognizer and liveness)`;
  return `face stack NOT cleared for commercial use: ${blocked.map((s) => `${s.name} (${s.license})`).join('; ')}. face.profile: commercial uses only permissively licensed models`;
}

/** Face module: loads the configured detector, recognizer, passive-liveness and demographics models at start, serves /detect and /verify. */
export default fp(
  async (app) => {
    const { config, models, status, lifecycle } = app.vigil;
    const detector = DETECTOR_MODELS[config.face.detector];
    const recognizer = RECOGNIZER_MODELS[config.face.recognizer];
    const liveness = config.face.enable_liveness ? LIVENESS_MODELS : [];
    const service = new FaceService(models, config);

    lifecycle.add({
      name: 'face-models',
      start: async () => {
        // Required and optional models alike: a failure is recorded by the registry (health,
        // /admin/models) and the rest still start; an optional one that fails leaves its field null.
        await Promise.all([...service.requiredModels(), ...service.optionalModels()].map((m) => service.openModel(m)));
      },
    });
    const detectorReport = modelComponent(models, [detector]);
    // The detector's note says whether the whole active face stack may be used commercially
    // (issue 21: a licence-clean profile), naming the models that may not.
    status.setComponent('face_detector', () => {
      const r = detectorReport();
      return r.loaded ? { ...r, reason: commercialNote(models, service.activeModels(), config.face.profile) } : r;
    });
    const recognizerReport = modelComponent(models, [recognizer]);
    const calibration = describeCalibration(recognizer);
    // A loaded recognizer's note says what its similarity scale rests on (issue 21: honest thresholds).
    status.setComponent('face_recognizer', () => {
      const r = recognizerReport();
      return r.loaded ? { ...r, reason: calibration } : r;
    });
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
    // Healthy when every required model is loaded; demographics is optional (null when absent,
    // /admin/models says why), so it is reported here but does not make the module unhealthy.
    status.setModule('face', () => {
      const missing = [detector, recognizer, ...liveness].filter((m) => !models.status(m)?.loaded);
      if (missing.length > 0) {
        const why = missing.map((m) => `${m}: ${models.status(m)?.reason ?? 'not loaded yet'}`).join('; ');
        return { ok: false, detail: `models unavailable: ${why}` };
      }
      const attrs = !config.face.enable_demographics ? 'off' : models.status(DEMOGRAPHICS_MODEL)?.loaded ? 'on' : `unavailable (${models.status(DEMOGRAPHICS_MODEL)?.reason ?? 'not loaded yet'})`;
      return { ok: true, detail: `detector ${detector}, recognizer ${recognizer}, passive liveness ${liveness.length ? 'on' : 'off'}, demographics ${attrs}` };
    });

    app.decorate('faceService', service);
    await faceRoutes(app);
  },
  { name: 'vigil-face', dependencies: ['vigil-core'] },
);
