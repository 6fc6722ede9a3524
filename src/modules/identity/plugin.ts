import fp from 'fastify-plugin';
import { ModuleDisabledError } from '../../core/errors.js';
import { clusterRoutes } from './cluster-routes.js';
import { IdentityService } from './identity-service.js';
import { identityRoutes } from './routes.js';
import { WatchlistStore } from './watchlist-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    identity: IdentityService;
  }
}

/**
 * Identity module: watchlists in LMDB (identity.watchlist_dir) loaded into per-watchlist
 * in-memory indexes at start, 1:N identification, match events, provisional clusters
 * (face_clusterer) and multi-sample decisions (identity_resolver). Needs the face service.
 */
export default fp(
  async (app) => {
    const { config, log, bus, status, lifecycle, models } = app.vigil;
    const enabled = config.identity.enabled;
    const service = new IdentityService({
      config,
      log: log.child({ module: 'identity' }),
      bus,
      face: app.faceService,
      store: new WatchlistStore(config.identity.watchlist_dir, app.vigil.storage),
    });
    app.decorate('identity', service);

    if (enabled) {
      lifecycle.add({ name: 'identity-watchlists', start: () => service.start(), stop: () => service.stop() });
    }
    const recognizerReady = () => models.status(app.faceService.recognizerName)?.loaded === true;
    const why = () =>
      !enabled
        ? 'disabled (identity.enabled: false)'
        : !service.loaded
          ? 'watchlist database not open'
          : `recognizer ${app.faceService.recognizerName}: ${models.status(app.faceService.recognizerName)?.reason ?? 'not loaded'}`;
    status.setComponent('identity_resolver', () => (enabled && service.loaded && recognizerReady() ? { loaded: true } : { loaded: false, reason: why() }));
    status.setComponent('face_clusterer', () => {
      if (enabled && !config.identity.cluster_unmatched) return { loaded: false, reason: 'disabled (identity.cluster_unmatched: false)' };
      return enabled && service.loaded && recognizerReady() ? { loaded: true } : { loaded: false, reason: why() };
    });
    status.setModule('identity', () => {
      const s = service.status();
      if (s.ok && !recognizerReady()) return { ok: false, detail: `${s.detail}; ${why()}` };
      return s;
    });

    await app.register(async (scope) => {
      if (!enabled) {
        scope.addHook('onRequest', async () => {
          throw new ModuleDisabledError('identity');
        });
      }
      await identityRoutes(scope, service);
      await clusterRoutes(scope, service);
    });
  },
  { name: 'vigil-identity', dependencies: ['vigil-core', 'vigil-face'] },
);
