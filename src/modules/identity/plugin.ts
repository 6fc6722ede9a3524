import { defineModule, type ModuleRuntime } from '../../core/module.js';
import { clusterRoutes } from './cluster-routes.js';
import { IdentityService } from './identity-service.js';
import { identityRoutes } from './routes.js';
import { WatchlistStore } from './watchlist-store.js';

declare module '../../core/module.js' {
  interface ModuleServices {
    identity: IdentityService;
  }
}

/**
 * Identity module: watchlists in LMDB (identity.watchlist_dir) loaded into per-watchlist
 * in-memory indexes at start, 1:N identification, match events, provisional clusters
 * (face_clusterer) and multi-sample decisions (identity_resolver). Needs the face service.
 */
export default defineModule({
  name: 'identity',
  dependencies: ['face'],
  eventTypes: ['face_matched', 'watchlist_alert'],
  service: ({ app, ctx }) =>
    new IdentityService({
      config: ctx.config,
      log: ctx.log.child({ module: 'identity' }),
      bus: ctx.bus,
      face: app.face,
      store: new WatchlistStore(ctx.config.identity.watchlist_dir, ctx.storage),
    }),
  start: (service) => service.start(),
  stop: (service) => service.stop(),
  components: (service, m) => {
    const { config } = m.ctx;
    const ready = () => service.loaded && recognizerReady(m);
    return {
      identity_resolver: () => (ready() ? { loaded: true } : { loaded: false, reason: why(service, m) }),
      face_clusterer: () => {
        if (!config.identity.cluster_unmatched) return { loaded: false, reason: 'disabled (identity.cluster_unmatched: false)' };
        return ready() ? { loaded: true } : { loaded: false, reason: why(service, m) };
      },
    };
  },
  health: (service, m) => {
    const s = service.status();
    if (s.ok && !recognizerReady(m)) return { ok: false, detail: `${s.detail}; ${why(service, m)}` };
    return s;
  },
  routes: async (scope, service) => {
    await identityRoutes(scope, service);
    await clusterRoutes(scope, service);
  },
});

const recognizerReady = ({ app, ctx }: ModuleRuntime) => ctx.models.status(app.face.recognizerName)?.loaded === true;

function why(service: IdentityService, { app, ctx }: ModuleRuntime): string {
  if (!service.loaded) return 'watchlist database not open';
  return `recognizer ${app.face.recognizerName}: ${ctx.models.status(app.face.recognizerName)?.reason ?? 'not loaded'}`;
}
