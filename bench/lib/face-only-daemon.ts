import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnDaemon, type Daemon } from '../../test/helpers/daemon.js';

/**
 * A spawned daemon with only the face module on (what /detect needs), metrics on or off, in a
 * fresh data dir the caller removes. Its queue lets four clients at once wait rather than meet
 * admission control's 503.
 */
export async function spawnFaceOnlyDaemon(metrics: boolean): Promise<Daemon & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-detect-'));
  const d = await spawnDaemon(
    {
      VIGIL_DATA_DIR: dataDir,
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_SERVER_METRICS: String(metrics),
      VIGIL_DOCUMENT_ENABLED: 'false',
      VIGIL_IDENTITY_ENABLED: 'false',
      VIGIL_LIVENESS_ENABLED: 'false',
      VIGIL_PERSON_ENABLED: 'false',
      VIGIL_LIMITS_INFERENCE_QUEUE: '16',
    },
    { timeoutMs: 180_000 },
  );
  return Object.assign(d, { dataDir });
}
