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
      const mod = require('@techstark/opencv-js') as EmscriptenModule;
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
