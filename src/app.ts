import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { finishOpenApi } from './core/openapi.js';
import type { Logger } from 'pino';
import type { VigilConfig } from './config/schema.js';
import { createLogger } from './core/logger.js';
import { EventBus } from './core/event-bus.js';
import { Lifecycle } from './core/lifecycle.js';
import { StatusBoard } from './core/status-board.js';
import { Metrics } from './core/metrics.js';
import { installHttpMetrics } from './core/http-metrics.js';
import { lazyChildLogger, requestId } from './core/request-id.js';
import { StorageGuard } from './core/storage-guard.js';
import { installErrorHandler } from './core/error-handler.js';
import { validationSchemaController } from './core/request-validation.js';
import { httpServerOptions, installBodyAdmission } from './core/http-protocol.js';
import { installAdmission } from './core/admission.js';
import { installAccessControl } from './core/access-control.js';
import { decodeLimits } from './core/pixel-budget.js';
import { MAX_TEXT_FIELD_BYTES } from './core/multipart-form.js';
import { ErrorBodySchema } from './core/http-schemas.js';
import { packageVersion } from './core/package-root.js';
import type { VigilContext } from './core/context.js';
import { registerDashboard } from './core/dashboard.js';
import { ModelRegistry } from './runtime/model-registry.js';
import { probeGpuVendors, realBox, resolveProfile, type BoxProbe } from './runtime/hw-profile.js';
import { MODULES } from './modules/index.js';

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
    // Loading and warming every model in the onReady hook took over fastify's 10 s default on a
    // busy 2-core box, and the daemon then died at start. Each component's failure is reported by
    // the lifecycle, and systemd's TimeoutStartSec bounds a start that hangs.
    pluginTimeout: 0,
    // Per-request lines only at debug/trace: an edge box's journal is small.
    logController: new LogController({ disableRequestLogging: !verbose }),
    // Timeouts, TLS and parser errors in the one error shape: see http-protocol.ts.
    ...httpServerOptions(config),
    // Bodies strict, URLs coerced but finite: see request-validation.ts.
    schemaController: validationSchemaController(),
  });
  installErrorHandler(app);
  // First, so that refusals (401, 503 BUSY) carry the id too. A callback hook, not an async
  // one: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Before every other gating onRequest hook: an unauthenticated request takes no queue slot.
  installAccessControl(app, config);
  installBodyAdmission(app, config);
  app.addSchema(ErrorBodySchema);
  const metrics = new Metrics(config.server.metrics);
  if (metrics.enabled) installHttpMetrics(app, metrics);

  await app.register(multipart, {
    limits: {
      fileSize: config.server.max_upload_bytes,
      files: 4,
      fields: 20,
      fieldSize: MAX_TEXT_FIELD_BYTES,
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
    transformObject: (doc) => finishOpenApi(('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as Record<string, unknown>) as never,
    transform: ({ schema, url, route }) => {
      const doc = (route.config as { multipartDoc?: unknown } | undefined)?.multipartDoc;
      if (!doc || !schema) return { schema, url };
      return { schema: { ...schema, body: doc } as typeof schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await registerDashboard(app);

  const box = deps.box ?? (config.server.hw_profile === 'auto' ? { ...realBox, gpuVendors: await probeGpuVendors() } : realBox);
  const profile = resolveProfile(config.server.hw_profile, box);
  const lifecycle = new Lifecycle(log.child({ component: 'lifecycle' }));
  const storage = new StorageGuard(config.server.data_dir, config.server.storage_reserve_mb * 1024 * 1024, log.child({ component: 'storage' }));
  const ctx: VigilContext = {
    config,
    log,
    bus: new EventBus(log.child({ component: 'event-bus' })),
    models: new ModelRegistry(config.face.models_dir, profile, config.face.ctx_id, log.child({ component: 'models' }), config.server.inference_workers, (model, wait, run) =>
      metrics.observeInference(model, wait, run),
    ),
    status: new StatusBoard(config, storage),
    lifecycle,
    profile,
    metrics,
    storage,
  };
  ctx.bus.subscribe('metrics', (event) => {
    if (metrics.enabled) metrics.events.inc({ type: event.type });
  });
  // Bounded resources (docs/security.md): per-class admission before any upload is read,
  // and a process-wide budget of decoded pixels with a JPEG scan cap.
  installAdmission(app, config, ctx.models.layout.workers);
  decodeLimits.budget.setMax(config.limits.max_pixels_in_flight);
  decodeLimits.maxJpegScans = config.limits.max_jpeg_scans;
  log.info({ hw_profile: profile.name, detected_by: profile.detected_by, providers: profile.execution_providers }, 'hardware profile');

  await app.register(
    fp(
      async (instance) => {
        instance.decorate('vigil', ctx);
      },
      { name: 'vigil-core' },
    ),
  );
  for (const module of MODULES) await app.register(module);

  // Modules start in registration order once every plugin is in place, and stop in reverse.
  app.addHook('onReady', async () => {
    storage.start();
    await lifecycle.start();
  });
  app.addHook('onClose', async () => {
    storage.stop();
    await lifecycle.stop();
    await ctx.models.close();
  });
  return app;
}
