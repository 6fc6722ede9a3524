import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from 'pino';
import type { VigilConfig } from './config/schema.js';
import { createLogger } from './core/logger.js';
import { EventBus } from './core/event-bus.js';
import { Lifecycle } from './core/lifecycle.js';
import { StatusBoard } from './core/status-board.js';
import { Metrics } from './core/metrics.js';
import { installHttpMetrics } from './core/http-metrics.js';
import { lazyChildLogger, requestId } from './core/request-id.js';
import { installErrorHandler } from './core/error-handler.js';
import { ErrorBodySchema } from './core/http-schemas.js';
import { packageVersion } from './core/package-root.js';
import type { VigilContext } from './core/context.js';
import { ModelRegistry } from './runtime/model-registry.js';
import { probeGpuVendors, realBox, resolveProfile, type BoxProbe } from './runtime/hw-profile.js';
import { MODULE_PLUGINS } from './modules/index.js';

export interface AppDeps {
  logger?: Logger;
  /** Describes the box for hw_profile: auto (tests inject one). */
  box?: BoxProbe;
}

/**
 * Builds the whole service from a config object without listening; server.ts
 * wires the process around it and tests drive it through inject().
 */
export async function buildApp(config: VigilConfig, deps: AppDeps = {}): Promise<FastifyInstance> {
  const log = deps.logger ?? createLogger(config.server.log_level);
  const verbose = config.server.log_level === 'debug' || config.server.log_level === 'trace';
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // X-Request-Id honoured (or a UUID made) and carried by every log line of the request;
    // the per-request pino child is only made when the request logs something.
    genReqId: requestId,
    childLoggerFactory: lazyChildLogger,
    // Uploads are bounded by the multipart limits below; JSON bodies are small.
    bodyLimit: 1024 * 1024,
    // Modules load and warm their models in onReady: on a busy box that takes longer than
    // fastify's 10 s default, and past it the daemon exited instead of starting.
    pluginTimeout: 120_000,
    // Per-request lines only at debug/trace: an edge box's journal is small.
    logController: new LogController({ disableRequestLogging: !verbose }),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false } },
  });
  installErrorHandler(app);
  app.addSchema(ErrorBodySchema);
  // Callback hooks, not async ones: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  const metrics = new Metrics(config.server.metrics);
  if (metrics.enabled) installHttpMetrics(app, metrics);

  await app.register(multipart, {
    limits: {
      fileSize: config.server.max_upload_bytes,
      files: 4,
      fields: 20,
      fieldSize: 64 * 1024,
      parts: 30,
      headerPairs: 100,
    },
    throwFileSizeLimit: true,
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Vigil',
        description: 'Self-hosted biometrics daemon: face, document, liveness, video, identity and events under /api/v1.',
        version: packageVersion(),
      },
    },
    transform: ({ schema, url, route }) => {
      const doc = (route.config as { multipartDoc?: unknown } | undefined)?.multipartDoc;
      if (!doc || !schema) return { schema, url };
      return { schema: { ...schema, body: doc } as typeof schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  const box = deps.box ?? (config.server.hw_profile === 'auto' ? { ...realBox, gpuVendors: await probeGpuVendors() } : realBox);
  const profile = resolveProfile(config.server.hw_profile, box);
  const lifecycle = new Lifecycle(log.child({ component: 'lifecycle' }));
  const ctx: VigilContext = {
    config,
    log,
    bus: new EventBus(log.child({ component: 'event-bus' })),
    models: new ModelRegistry(config.face.models_dir, profile, config.face.ctx_id, log.child({ component: 'models' }), config.server.inference_workers, (model, wait, run) =>
      metrics.observeInference(model, wait, run),
    ),
    status: new StatusBoard(config),
    lifecycle,
    profile,
    metrics,
  };
  ctx.bus.subscribe('metrics', (event) => {
    if (metrics.enabled) metrics.events.inc({ type: event.type });
  });
  log.info({ hw_profile: profile.name, detected_by: profile.detected_by, providers: profile.execution_providers }, 'hardware profile');

  await app.register(
    fp(
      async (instance) => {
        instance.decorate('vigil', ctx);
      },
      { name: 'vigil-core' },
    ),
  );
  for (const plugin of MODULE_PLUGINS) await app.register(plugin);

  // Modules start in registration order once every plugin is in place, and stop in reverse.
  app.addHook('onReady', async () => {
    await lifecycle.start();
  });
  app.addHook('onClose', async () => {
    await lifecycle.stop();
    await ctx.models.close();
  });
  return app;
}
