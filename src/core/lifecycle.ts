import type { Logger } from 'pino';

export interface Component {
  name: string;
  /** Does the work the constructor must not do: open files, load models, spawn processes. */
  start?: () => Promise<void> | void;
  /** Undo start: flush, close, kill children. Called in reverse order. */
  stop?: () => Promise<void> | void;
}

/**
 * Starts components in registration order and stops them in reverse. A component
 * whose start fails is logged and remembered (health reports it); the others
 * still start, so one broken model does not take the daemon down.
 */
export class Lifecycle {
  private readonly components: Component[] = [];
  private readonly started = new Set<string>();
  readonly failures = new Map<string, string>();
  private readonly afterStart: (() => void)[] = [];

  constructor(private readonly log: Logger) {}

  add(component: Component): void {
    this.components.push(component);
  }

  async start(): Promise<void> {
    for (const c of this.components) {
      const t0 = performance.now();
      try {
        await c.start?.();
        this.started.add(c.name);
        this.log.debug({ component: c.name, ms: Math.round(performance.now() - t0) }, 'started');
      } catch (err) {
        this.failures.set(c.name, (err as Error).message);
        this.log.error({ err, component: c.name }, 'component failed to start');
      }
    }
    for (const fn of this.afterStart) fn();
  }

  /** Runs `fn` once every component has started (or failed to). */
  whenStarted(fn: () => void): void {
    this.afterStart.push(fn);
  }

  async stop(): Promise<void> {
    for (const c of [...this.components].reverse()) {
      if (!this.started.has(c.name)) continue;
      try {
        await c.stop?.();
      } catch (err) {
        this.log.error({ err, component: c.name }, 'component failed to stop cleanly');
      }
      this.started.delete(c.name);
    }
  }
}
