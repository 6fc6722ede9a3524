import fp from 'fastify-plugin';
import { modelComponent } from '../../core/status-board.js';
import { PERSON_MODEL, PersonService } from './person-service.js';

export { PERSON_MODEL };

declare module 'fastify' {
  interface FastifyInstance {
    personService: PersonService;
  }
}

/**
 * Person module: loads the person detector (person.model_path) at start when
 * enabled and offers detection and ByteTrack tracking to the video module.
 */
export default fp(
  async (app) => {
    const { config, models, status, lifecycle } = app.vigil;
    const service = new PersonService(config, models);
    app.decorate('personService', service);
    if (!config.person.enabled) {
      status.setComponent('person_detector', () => ({ loaded: false, reason: 'disabled (person.enabled: false)' }));
      status.setComponent('person_tracker', () => ({ loaded: false, reason: 'disabled (person.enabled: false)' }));
      return;
    }
    lifecycle.add({
      name: 'person-models',
      start: async () => {
        await models.load(PERSON_MODEL, {
          file: config.person.model_path,
          intraOpThreads: config.person.detector_threads,
          // person.detector_input > 0 feeds frames at their own aspect: the session needs free spatial dims.
          freeInputDims: config.person.detector_input > 0,
        });
        service.attach();
      },
      stop: () => service.close(),
    });
    status.setComponent('person_detector', modelComponent(models, [PERSON_MODEL]));
    status.setComponent('person_tracker', () =>
      service.available ? { loaded: true, reason: service.trackerSummary() } : { loaded: false, reason: `no detections to track: ${service.unavailableReason()}` },
    );
    status.setModule('person', () =>
      service.available ? { ok: true, detail: service.trackerSummary() } : { ok: false, detail: service.unavailableReason() },
    );
  },
  { name: 'vigil-person', dependencies: ['vigil-core'] },
);
