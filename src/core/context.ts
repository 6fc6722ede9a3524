import type { Logger } from 'pino';
import type { VigilConfig } from '../config/schema.js';
import type { ModelRegistry } from '../runtime/model-registry.js';
import type { HwProfile } from '../runtime/hw-profile.js';
import type { EventBus } from './event-bus.js';
import type { Lifecycle } from './lifecycle.js';
import type { Metrics } from './metrics.js';
import type { StatusBoard } from './status-board.js';
import type { StorageGuard } from './storage-guard.js';

/** Everything a module needs, passed as one object instead of eight arguments. */
export interface VigilContext {
  config: VigilConfig;
  log: Logger;
  bus: EventBus;
  models: ModelRegistry;
  status: StatusBoard;
  lifecycle: Lifecycle;
  profile: HwProfile;
  /** Prometheus instruments; modules add their scrape-time gauges here. */
  metrics: Metrics;
  /** The gate every write to the data folder passes (507 STORAGE_FULL on a full disk). */
  storage: StorageGuard;
}

declare module 'fastify' {
  interface FastifyInstance {
    vigil: VigilContext;
  }
}
