import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import fp from 'fastify-plugin';
import type { ModuleName } from '../config/schema.js';
import type { LoadModelOptions } from '../runtime/model-registry.js';
import type { VigilContext } from './context.js';
import { ModuleDisabledError } from './errors.js';
import type { EventType } from './event-types.js';
import type { ComponentName, ComponentReport, ModuleReport } from './status-board.js';

/**
 * Each module's service by module name. A module adds its own entry by declaration merging
 * (`declare module '../../core/module.js' { interface ModuleServices { face: FaceService } }`),
 * and the contract decorates the app with it under that same name: `app.face`, `app.video`...
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ModuleServices {}

declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the services, typed by name
  interface FastifyInstance extends ModuleServices {}
}

/** The seven configurable modules, plus admin (always on, no section of its own). */
export type ModuleId = ModuleName | 'admin';

type ServiceOf<N extends ModuleId> = N extends keyof ModuleServices ? ModuleServices[N] : undefined;

/** A model file the module needs, loaded through the registry (sha256, inference pool, warm-up, /admin/models). */
export interface ModelRequest extends LoadModelOptions {
  name: string;
}

/**
 * The fastify instance a module's routes are registered on: typed by the TypeBox provider, so
 * each route's `request.body`, `params` and `query` take their types from the route's schemas
 * (the one way routes type their inputs: no generics, no casts).
 */
export type RouteScope = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What every hook of a module is handed: the app, its context, and the module's own state. */
export interface ModuleRuntime {
  readonly app: FastifyInstance;
  /** app.vigil: config, log, bus, model registry, status board, lifecycle... */
  readonly ctx: VigilContext;
  /** `<module>.enabled` (admin and face have no switch: always true). */
  readonly enabled: boolean;
  /** Set once start() has returned. */
  readonly started: boolean;
  /** Why the module's start threw (the lifecycle's record), or undefined. */
  readonly startFailure: string | undefined;
}

export interface ModuleDefinition<N extends ModuleId> {
  name: N;
  /** Modules whose services this one reads: registered (and started) before it. */
  dependencies?: readonly ModuleId[];
  /** The event types it emits (payload schemas in core/event-schemas.ts). */
  eventTypes?: readonly EventType[];
  /**
   * Builds the service: no I/O (start does that). Built whether or not the module is enabled,
   * so others can ask it why it is off; `enabled` says whether start will run.
   */
  service?: (m: ModuleRuntime) => ServiceOf<N>;
  /** Model files loaded through the registry before start(); one that fails is recorded there and the rest still load. */
  models?: (m: ModuleRuntime) => ModelRequest[];
  /** Opens files, spawns processes, once the models are loaded. A throw is reported in health with its message. */
  start?: (service: ServiceOf<N>, m: ModuleRuntime) => Promise<void> | void;
  stop?: (service: ServiceOf<N>, m: ModuleRuntime) => Promise<void> | void;
  /** Runs once every module has started (or failed to). */
  afterStart?: (service: ServiceOf<N>, m: ModuleRuntime) => void;
  /** Its rows of /admin/models. A disabled module's rows all say so, without calling these. */
  components?: (service: ServiceOf<N>, runtime: ModuleRuntime) => Partial<Record<ComponentName, () => ComponentReport>>;
  /** Its entry in /admin/health (not called while disabled: health reports it disabled). */
  health?: (service: ServiceOf<N>, runtime: ModuleRuntime) => ModuleReport;
  /**
   * Its routes, in a scope of their own; while the module is disabled every one of them answers
   * 503 MODULE_DISABLED before anything else runs (and they still appear in the OpenAPI document).
   */
  routes?: (scope: RouteScope, service: ServiceOf<N>, m: ModuleRuntime) => Promise<void> | void;
}

/** The fastify plugin name of a module (what `dependencies` refer to). */
export const pluginName = (module: ModuleId): string => `vigil-${module}`;

/** What a module declares about itself, for the docs and the contract's tests. */
export interface ModuleInfo {
  name: ModuleId;
  dependencies: readonly ModuleId[];
  eventTypes: readonly EventType[];
  /** Whether it has a service (`app.<name>`). */
  service: boolean;
}

/** A module as the app registers it: the plugin, and what it declares. */
export interface VigilModule extends FastifyPluginAsync {
  readonly info: ModuleInfo;
}

/**
 * The one contract every module is written against (docs/architecture.md). It gives each module
 * the same answers to the same questions: enabled is `<module>.enabled`; disabled routes answer
 * 503 MODULE_DISABLED; the service is `app.<module>`; models load through the registry; a
 * start that throws is reported by health and /admin/models with the reason.
 */
export function defineModule<N extends ModuleId>(def: ModuleDefinition<N>): VigilModule {
  const plugin = fp(
    async (app: FastifyInstance) => {
      const ctx = app.vigil;
      const { status, lifecycle, models } = ctx;
      const configurable = def.name !== 'admin';
      const enabled = !configurable || status.isEnabled(def.name as ModuleName);
      let started = false;
      const runtime: ModuleRuntime = {
        app,
        ctx,
        enabled,
        get started() {
          return started;
        },
        get startFailure() {
          return lifecycle.failures.get(def.name);
        },
      };
      const service = def.service?.(runtime) as ServiceOf<N>;
      if (def.service) app.decorate(def.name, service as never);

      if (enabled && (def.models || def.start || def.stop)) {
        lifecycle.add({
          name: def.name,
          start: async () => {
            // A model that fails is recorded by the registry (its reason in /admin/models and in
            // the module's health); the module still starts without it.
            await Promise.all((def.models?.(runtime) ?? []).map(({ name, ...options }) => models.load(name, options)));
            await def.start?.(service, runtime);
            started = true;
          },
          stop: () => def.stop?.(service, runtime),
        });
      }
      if (enabled && def.afterStart) lifecycle.whenStarted(() => def.afterStart!(service, runtime));

      const disabled = `disabled (${def.name}.enabled: false)`;
      for (const [name, probe] of Object.entries(def.components?.(service, runtime) ?? {}) as [ComponentName, () => ComponentReport][]) {
        status.setComponent(name, enabled ? probe : () => ({ loaded: false, reason: disabled }));
      }
      const health = def.health;
      if (configurable && health) {
        status.setModule(def.name as ModuleName, () => {
          const report = health(service, runtime);
          // Whatever the module's own probe says, a start that threw leaves it failed, and the
          // detail carries the reason (the module may word it itself: "camera manager failed to start: ...").
          const failure = runtime.startFailure;
          if (!failure) return report;
          if (report.detail.includes(failure)) return { ok: false, detail: report.detail };
          return { ok: false, detail: `${def.name} failed to start: ${failure}${report.ok ? '' : `; ${report.detail}`}` };
        });
      }

      if (def.routes) {
        const routes = def.routes;
        await app.register(async (scope) => {
          if (!enabled) {
            scope.addHook('onRequest', async () => {
              throw new ModuleDisabledError(def.name);
            });
          }
          await routes(scope.withTypeProvider<TypeBoxTypeProvider>(), service, runtime);
        });
      }
    },
    { name: pluginName(def.name), dependencies: ['vigil-core', ...(def.dependencies ?? []).map(pluginName)] },
  );
  const info: ModuleInfo = { name: def.name, dependencies: def.dependencies ?? [], eventTypes: def.eventTypes ?? [], service: def.service !== undefined };
  return Object.assign(plugin, { info });
}
