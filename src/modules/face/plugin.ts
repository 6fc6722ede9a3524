import { defineModule } from '../../core/module.js';
import { modelComponent } from '../../core/status-board.js';
import { DEMOGRAPHICS_MODEL } from './demographics.js';
import { FaceService } from './face-service.js';
import { LIVENESS_MODELS, RECOGNIZER_LANDMARKS } from './model-names.js';
import { faceRoutes } from './routes.js';
import { describeCalibration } from './score-calibration.js';
import type { ModelRegistry } from '../../runtime/model-registry.js';

/** One line: is every model of the active face stack licensed for commercial use, and which are not. */
function commercialNote(models: ModelRegistry, active: string[], profile: string): string {
  const statuses = active.map((m) => models.status(m)).filter((s) => s !== undefined);
  const blocked = statuses.filter((s) => !s.commercial_use);
  if (blocked.length === 0)
    return `face stack cleared for commercial use (face.profile ${profile}): ${statuses.map((s) => s.name).join(', ')} all carry permissive licences (each model's license below and under face_recognizer and liveness)`;
  return `face stack NOT cleared for commercial use: ${blocked.map((s) => `${s.name} (${s.license})`).join('; ')}. face.profile: commercial uses only permissively licensed models`;
}

declare module '../../core/module.js' {
  interface ModuleServices {
    face: FaceService;
  }
}

/** Face module: loads the configured detector, recognizer, passive-liveness and demographics models at start, serves /detect and /verify. */
export default defineModule({
  name: 'face',
  eventTypes: ['face_detected'],
  service: ({ ctx }) => new FaceService(ctx.models, ctx.config),
  // Required and optional models alike: a failure is recorded by the registry (health,
  // /admin/models) and the rest still start; an optional one that fails leaves its field null.
  models: ({ app: { face } }) => [...face.requiredModels(), ...face.optionalModels()].map((name) => ({ name, ...face.modelTuning(name) })),
  components: (service, { ctx: { config, models } }) => {
    const detectorReport = modelComponent(models, [service.detectorName]);
    // The landmark model a recognizer's alignment needs is part of it (dlib's chip, dlib-chip.ts).
    const landmarks = RECOGNIZER_LANDMARKS[service.recognizerName];
    const recognizerReport = modelComponent(models, [service.recognizerName, ...(landmarks ? [landmarks] : [])]);
    const calibration = describeCalibration(service.recognizerName);
    return {
      // The detector's note says whether the whole active face stack may be used commercially
      // (issue 21: a licence-clean profile), naming the models that may not.
      face_detector: () => {
        const r = detectorReport();
        return r.loaded ? { ...r, reason: commercialNote(models, service.activeModels(), config.face.profile) } : r;
      },
      // A loaded recognizer's note says what its similarity scale rests on (issue 21: honest thresholds).
      face_recognizer: () => {
        const r = recognizerReport();
        return r.loaded ? { ...r, reason: calibration } : r;
      },
      liveness: config.face.enable_liveness ? modelComponent(models, LIVENESS_MODELS) : () => ({ loaded: false, reason: 'disabled (face.enable_liveness: false)' }),
      demographics: config.face.enable_demographics ? modelComponent(models, [DEMOGRAPHICS_MODEL]) : () => ({ loaded: false, reason: 'disabled (face.enable_demographics: false)' }),
    };
  },
  // Healthy when every required model is loaded; demographics is optional (null when absent,
  // /admin/models says why), so it is reported here but does not make the module unhealthy.
  health: (service, { ctx: { config, models } }) => {
    const missing = service.requiredModels().filter((m) => !models.status(m)?.loaded);
    if (missing.length > 0) {
      const why = missing.map((m) => `${m}: ${models.status(m)?.reason ?? 'not loaded yet'}`).join('; ');
      return { ok: false, detail: `models unavailable: ${why}` };
    }
    const attrs = !config.face.enable_demographics ? 'off' : models.status(DEMOGRAPHICS_MODEL)?.loaded ? 'on' : `unavailable (${models.status(DEMOGRAPHICS_MODEL)?.reason ?? 'not loaded yet'})`;
    const passive = config.face.enable_liveness ? 'on' : 'off';
    return { ok: true, detail: `detector ${service.detectorName}, recognizer ${service.recognizerName}, passive liveness ${passive}, demographics ${attrs}` };
  },
  routes: (scope, service) => faceRoutes(scope, service),
});
