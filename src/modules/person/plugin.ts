import { defineModule } from '../../core/module.js';
import { modelComponent } from '../../core/status-board.js';
import { PERSON_MODEL, PersonService } from './person-service.js';

export { PERSON_MODEL };

declare module '../../core/module.js' {
  interface ModuleServices {
    person: PersonService;
  }
}

/**
 * Person module: loads the person detector (person.model_path) at start when
 * enabled and offers detection and ByteTrack tracking to the video module.
 */
export default defineModule({
  name: 'person',
  service: ({ ctx }) => new PersonService(ctx.config, ctx.models),
  models: ({ ctx: { config } }) => [
    {
      name: PERSON_MODEL,
      file: config.person.model_path,
      intraOpThreads: config.person.detector_threads,
      // person.detector_input > 0 feeds frames at their own aspect: the session needs free spatial dims.
      freeInputDims: config.person.detector_input > 0,
    },
  ],
  start: (service) => service.attach(),
  stop: (service) => service.close(),
  components: (service, { ctx: { models } }) => ({
    person_detector: modelComponent(models, [PERSON_MODEL]),
    person_tracker: () => (service.available ? { loaded: true, reason: service.trackerSummary() } : { loaded: false, reason: `no detections to track: ${service.unavailableReason()}` }),
  }),
  health: (service) => (service.available ? { ok: true, detail: service.trackerSummary() } : { ok: false, detail: service.unavailableReason() }),
});
