import fp from 'fastify-plugin';
import { modelComponent } from '../../core/status-board.js';

export const PERSON_MODEL = 'person_det_yolox_nano';

/** Person module: loads the person detector (person.model_path) at start when enabled. */
export default fp(
  async (app) => {
    const { config, models, status, lifecycle } = app.vigil;
    if (!config.person.enabled) {
      status.setComponent('person_detector', () => ({ loaded: false, reason: 'disabled (person.enabled: false)' }));
      return;
    }
    lifecycle.add({
      name: 'person-models',
      start: async () => {
        await models.load(PERSON_MODEL, { file: config.person.model_path });
      },
    });
    status.setComponent('person_detector', modelComponent(models, [PERSON_MODEL]));
  },
  { name: 'vigil-person', dependencies: ['vigil-core'] },
);
