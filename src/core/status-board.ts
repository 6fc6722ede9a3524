import { MODULE_NAMES, type ModuleName, type VigilConfig } from '../config/schema.js';
import type { ModelRegistry, ModelStatus } from '../runtime/model-registry.js';
import type { StorageGuard, StorageReport } from './storage-guard.js';

/** The twelve component names /admin/models reports, with the module each belongs to. */
export const COMPONENTS = {
  face_detector: 'face',
  face_recognizer: 'face',
  liveness: 'face',
  demographics: 'face',
  document_detector: 'document',
  person_detector: 'person',
  person_tracker: 'person',
  active_liveness: 'liveness',
  event_bus: 'events',
  camera_manager: 'video',
  identity_resolver: 'identity',
  face_clusterer: 'identity',
} as const satisfies Record<string, ModuleName>;

export type ComponentName = keyof typeof COMPONENTS;

export interface ComponentReport {
  loaded: boolean;
  reason?: string;
  /** Model files behind the component, with licence and execution provider. */
  models?: ModelStatus[];
  /** Every model file of the component is licensed for commercial use. */
  commercial_use?: boolean;
}

export interface ModuleReport {
  /** false: the module cannot do its job (reported `failed`, and health answers 503). */
  ok: boolean;
  detail: string;
  /** Set while ok: it works, with something wrong beside (a camera down, the broker away). */
  degraded?: string;
}

/** The machine-readable state of one module in /admin/health `status`. */
export type ModuleState = 'ok' | 'degraded' | 'failed' | 'disabled';

export interface ModuleStatus {
  state: ModuleState;
  /** Why the module is degraded, failed or disabled; null when ok. */
  reason: string | null;
}

export interface HealthReport {
  healthy: boolean;
  modules: Record<ModuleName, boolean>;
  details: Record<ModuleName, string>;
  status: Record<ModuleName, ModuleStatus>;
  /** The data folder's free space (absent when no storage guard is attached, as in unit tests). */
  storage?: StorageReport;
}

const NOT_BUILT = 'not implemented in this build';

/**
 * What /admin/models and /admin/health read. Modules register probes (functions,
 * so the answer is current at request time); a component or module nobody
 * registered is reported as not implemented rather than silently absent.
 */
export class StatusBoard {
  private readonly components = new Map<ComponentName, () => ComponentReport>();
  private readonly modules = new Map<ModuleName, () => ModuleReport>();

  constructor(
    private readonly config: VigilConfig,
    private readonly storage?: StorageGuard,
  ) {}

  setComponent(name: ComponentName, probe: () => ComponentReport): void {
    this.components.set(name, probe);
  }

  setModule(name: ModuleName, probe: () => ModuleReport): void {
    this.modules.set(name, probe);
  }

  component(name: ComponentName): ComponentReport & { name: ComponentName; module: ModuleName } {
    const probe = this.components.get(name);
    const report = probe ? probe() : { loaded: false, reason: NOT_BUILT };
    return { name, module: COMPONENTS[name], ...report };
  }

  allComponents() {
    return (Object.keys(COMPONENTS) as ComponentName[]).map((n) => this.component(n));
  }

  /** Modules whose section has `enabled: false` are reported false and left out of `healthy`. */
  isEnabled(module: ModuleName): boolean {
    const section = this.config[module] as { enabled?: boolean };
    return section.enabled !== false;
  }

  /** The spec's {healthy, modules, details} plus `status`: each module's state and reason. */
  health(): HealthReport {
    const modules = {} as Record<ModuleName, boolean>;
    const details = {} as Record<ModuleName, string>;
    const status = {} as Record<ModuleName, ModuleStatus>;
    let healthy = true;
    for (const m of MODULE_NAMES) {
      if (!this.isEnabled(m)) {
        modules[m] = false;
        details[m] = 'disabled in configuration';
        status[m] = { state: 'disabled', reason: 'disabled in configuration' };
        continue;
      }
      const probe = this.modules.get(m);
      const report: ModuleReport = probe ? probe() : { ok: false, detail: NOT_BUILT };
      modules[m] = report.ok;
      details[m] = report.detail;
      // Not ok but with a degraded reason (cameras down): degraded, and the box unhealthy.
      status[m] = !report.ok
        ? { state: report.degraded ? 'degraded' : 'failed', reason: report.degraded ?? report.detail }
        : report.degraded
          ? { state: 'degraded', reason: report.degraded }
          : { state: 'ok', reason: null };
      healthy &&= report.ok;
    }
    if (!this.storage) return { healthy, modules, details, status };
    // A full data disk is a degraded daemon: it answers reads but cannot store.
    const storage = this.storage.report();
    return { healthy: healthy && storage.state === 'ok', modules, details, status, storage };
  }
}

/** A component made of model files: loaded when every one of them is. */
export function modelComponent(models: ModelRegistry, names: string[], notRequested = 'not requested by the configuration'): () => ComponentReport {
  return () => {
    const statuses = names.map((n) => models.status(n));
    if (statuses.some((s) => s === undefined)) return { loaded: false, reason: notRequested };
    const list = statuses as ModelStatus[];
    const broken = list.find((s) => !s.loaded);
    const commercial_use = list.every((s) => s.commercial_use);
    return broken ? { loaded: false, reason: `${broken.name}: ${broken.reason ?? 'not loaded'}`, models: list, commercial_use } : { loaded: true, models: list, commercial_use };
  };
}
