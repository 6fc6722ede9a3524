import type { FastifyInstance } from 'fastify';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { TESTDATA } from './paths.js';

/** Video test settings: low rates and short timers so the video tests run in well under a minute each. */
export const VIDEO_TEST_CONFIG = {
  enabled: true,
  max_fps: 10,
  watchdog_seconds: 4,
  rtsp_timeout_seconds: 2,
  restart_backoff_initial_seconds: 0.5,
  restart_backoff_max_seconds: 2,
  max_restarts: 4,
  restart_window_seconds: 60,
  failed_retry_seconds: 0,
  stop_timeout_seconds: 1,
  // File sources must lie under video.file_roots: the shared clips and the clips tests cut into temporary folders.
  file_roots: [TESTDATA, tmpdir()],
};

/** Polls until fn returns something other than undefined/false. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, everyMs = 250): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Pids of live processes whose command line contains `needle` (Linux /proc). */
export function processesWith(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(needle) && !/^\S*python/.test(cmd)) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Adds camera `pets` on `clip` with the line `mid` across the middle of the frame and the zone
 * `lower` over its lower half: the rules the count-history and MQTT count tests read back.
 */
export async function addPetsCameraWithRules(app: FastifyInstance, clip: string): Promise<void> {
  const rules: [string, object][] = [
    ['/api/v1/video/cameras', { camera_id: 'pets', source: clip }],
    [
      '/api/v1/video/cameras/pets/lines',
      {
        rule_id: 'mid',
        points: [
          [0, 0.5],
          [1, 0.5],
        ],
      },
    ],
    [
      '/api/v1/video/cameras/pets/zones',
      {
        rule_id: 'lower',
        points: [
          [0, 0.5],
          [1, 0.5],
          [1, 1],
          [0, 1],
        ],
      },
    ],
  ];
  for (const [url, payload] of rules) {
    const res = await app.inject({ method: 'POST', url, payload });
    if (res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  }
}
