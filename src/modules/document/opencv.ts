import { createRequire } from 'node:module';
import type * as CvTypes from '@techstark/opencv-js';

/** OpenCV's JavaScript (WASM) build: contours, rotated rectangles and perspective warps. */
export type CV = typeof CvTypes;

type EmscriptenModule = CV & { then?: (fn: (m: EmscriptenModule) => void) => void };

let loading: Promise<CV> | undefined;

/**
 * Initialises the WASM module once per process (about a second on a 2-core box) and
 * hands every caller the same instance. Emscripten's module object is a thenable that
 * resolves to itself, so resolving a promise with it would loop forever: `then` is
 * used once to wait for the runtime and then removed.
 */
export function loadOpenCv(): Promise<CV> {
  loading ??= new Promise<CV>((resolve, reject) => {
    try {
      const require = createRequire(import.meta.url);
      const mod = withoutProcessHandlers(() => require('@techstark/opencv-js') as EmscriptenModule);
      if (typeof mod.then !== 'function') {
        resolve(mod);
        return;
      }
      mod.then((ready) => {
        delete ready.then;
        resolve(ready);
      });
    } catch (err) {
      reject(err as Error);
    }
  });
  return loading;
}

const PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'] as const;

/**
 * Emscripten's node glue installs process-wide handlers when the module loads: an
 * unhandledRejection one that aborts the whole process (printing the WASM module into
 * the log, 10 MB on one line) and an uncaughtException one that rethrows. The daemon
 * owns its process: whatever the load adds is taken off again.
 */
function withoutProcessHandlers<T>(load: () => T): T {
  const proc = process as NodeJS.EventEmitter;
  const before = new Map(PROCESS_EVENTS.map((e) => [e, new Set(proc.listeners(e))]));
  try {
    return load();
  } finally {
    for (const e of PROCESS_EVENTS) {
      for (const l of proc.listeners(e)) if (!before.get(e)!.has(l)) proc.removeListener(e, l as (...args: unknown[]) => void);
    }
  }
}
