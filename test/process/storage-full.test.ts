import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnDaemon, type Daemon } from '../helpers/daemon.js';
import { assertErrorShape } from '../helpers/app.js';
import { testdata } from '../helpers/paths.js';
import { waitFor } from '../helpers/video.js';

const MB = 1024 * 1024;

/**
 * A small tmpfs is the data disk (we run as root in CI and here); where mounting is
 * not permitted the suite says so and skips rather than pretending.
 */
function mountTmpfs(dir: string, sizeMb: number): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `cannot mount a tmpfs (${String((err as { stderr?: Buffer }).stderr ?? err).trim()})`;
  }
}

function free(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/** Fills the file system until `leave` bytes are free (or ENOSPC when leave is 0). */
function fill(dir: string, leave: number): string {
  const file = join(dir, `filler-${Date.now()}`);
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(256 * 1024, 1);
  try {
    for (;;) {
      const room = free(dir) - leave;
      if (room <= 0) break;
      writeSync(fd, chunk, 0, Math.min(chunk.length, room));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return file;
}

function firstFace(): Buffer {
  const dir = testdata('faces', 'identities');
  for (const person of readdirSync(dir)) {
    const jpg = readdirSync(join(dir, person)).find((f) => f.endsWith('.jpg'));
    if (jpg) return readFileSync(join(dir, person, jpg));
  }
  throw new Error('no JPEG in the shared identities');
}
const face = firstFace;

async function enroll(base: string, label: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(face())], { type: 'image/jpeg' }), 'face.jpg');
  form.append('label', label);
  form.append('identity_id', label);
  const res = await fetch(`${base}/api/v1/watchlist/enroll`, { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function addWebhook(base: string, name: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/v1/events/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `https://receiver.invalid/${name}`, event_types: ['face_detected'] }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get(base: string, path: string): Promise<{ status: number; body: Record<string, unknown> & unknown[] }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & unknown[] };
}

const health = async (base: string) => (await get(base, '/api/v1/admin/health')).body as unknown as { healthy: boolean; storage: { state: string; detail: string } };

describe('a full data disk: 507 on writes, reads work, recovery without losing anything', () => {
  let mnt: string;
  let skip: string | null = null;
  let daemon: Daemon | null = null;
  const started: Daemon[] = [];
  const start = async (e: Record<string, string>) => {
    daemon = await spawnDaemon(e);
    started.push(daemon);
    return daemon;
  };
  const env = (extra: Record<string, string> = {}) => ({
    VIGIL_DATA_DIR: join(mnt, 'data'),
    VIGIL_LOG_LEVEL: 'warn',
    VIGIL_SERVER_STORAGE_RESERVE_MB: '8',
    VIGIL_LIVENESS_ENABLED: 'false',
    VIGIL_DOCUMENT_ENABLED: 'false',
    ...extra,
  });
  const stop = async () => {
    if (daemon && daemon.proc.exitCode === null && daemon.proc.signalCode === null) {
      daemon.proc.kill('SIGTERM');
      const e = await daemon.exited;
      assert.equal(e.code, 0, `clean stop: ${daemon.output().slice(-2000)}`);
    }
    daemon = null;
  };

  before(() => {
    mnt = mkdtempSync(join(tmpdir(), 'vigil-fulldisk-'));
    skip = mountTmpfs(mnt, 64);
    if (skip) console.log(`# SKIP storage-full: ${skip}`);
  });
  after(async () => {
    for (const d of started) {
      if (d.proc.exitCode === null && d.proc.signalCode === null) {
        d.proc.kill('SIGKILL');
        await d.exited;
      }
    }
    if (!skip) execFileSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });

  it('while the disk is full writes answer 507 STORAGE_FULL, reads keep working, and writes resume when space returns', async (t) => {
    if (skip) return t.skip(skip);
    await start(env());
    const base = daemon!.url;
    assert.ok((await addWebhook(base, 'before')).status < 300);
    const e1 = await enroll(base, 'alice');
    assert.ok(e1.status < 300, JSON.stringify(e1.body));

    const filler = fill(mnt, 2 * MB);
    const w = await addWebhook(base, 'during');
    assert.equal(w.status, 507, JSON.stringify(w.body));
    assertErrorShape(w.body, 507, 'STORAGE_FULL');
    const e2 = await enroll(base, 'bob');
    assertErrorShape(e2.body, 507, 'STORAGE_FULL');
    // Reads keep working.
    const hooks = await get(base, '/api/v1/events/webhooks');
    assert.equal(hooks.status, 200);
    assert.equal(hooks.body.length, 1);
    assert.equal((await get(base, '/api/v1/watchlist')).status, 200);
    const h = await health(base);
    assert.equal(h.healthy, false);
    assert.equal(h.storage.state, 'full', h.storage.detail);

    rmSync(filler);
    await waitFor('storage ok', async () => (await health(base)).storage.state === 'ok', 10_000, 200);
    assert.ok((await addWebhook(base, 'after')).status < 300);
    assert.ok((await enroll(base, 'carol')).status < 300);
    await stop();

    // Nothing acknowledged was lost, nothing refused was half-written.
    await start(env());
    const urls = ((await get(daemon!.url, '/api/v1/events/webhooks')).body as unknown as { url: string }[]).map((x) => x.url).sort();
    assert.deepEqual(urls, ['https://receiver.invalid/after', 'https://receiver.invalid/before']);
    const lists = (await get(daemon!.url, '/api/v1/watchlist')).body as unknown as { watchlists: { name: string; size: number }[] };
    assert.equal(lists.watchlists.find((l) => l.name === 'default')?.size, 2, 'alice and carol, not bob');
    await stop();
  });

  it('starting on a full disk runs degraded instead of crash-looping, and recovers when space returns', async (t) => {
    if (skip) return t.skip(skip);
    const fresh = join(mnt, 'fresh');
    mkdirSync(fresh);
    // Without its index snapshot the identity module rebuilds from LMDB and tries to write a new one.
    rmSync(join(mnt, 'data', 'watchlists', 'index-snapshot.bin'), { force: true });
    const filler = fill(mnt, 0);
    // Stores that exist (data from the first test) and stores that cannot be created yet.
    for (const [dataDir, why] of [
      [join(mnt, 'data'), 'existing stores'],
      [fresh, 'no store yet'],
    ] as const) {
      await start(env({ VIGIL_DATA_DIR: dataDir }));
      const h = await health(daemon!.url);
      assert.equal(h.storage.state, 'full', `${why}: ${h.storage.detail}`);
      const w = await addWebhook(daemon!.url, 'x');
      // A store that exists refuses the write; one that could not be created leaves its module unavailable, saying why.
      if (dataDir === fresh) assert.match(String(w.body.message), /data disk full/, JSON.stringify(w.body));
      else assertErrorShape(w.body, 507, 'STORAGE_FULL');
      if (dataDir !== fresh) {
        assert.equal((await get(daemon!.url, '/api/v1/events/webhooks')).body.length, 2, 'stored webhooks still readable');
        const lists = (await get(daemon!.url, '/api/v1/watchlist')).body as unknown as { watchlists: { name: string; size: number }[] };
        assert.equal(lists.watchlists.find((l) => l.name === 'default')?.size, 2, 'enrolled identities still searchable');
        assert.equal((h as unknown as { modules: Record<string, boolean> }).modules.identity, true, 'identity module up');
      }
      if (dataDir === fresh) break;
      await stop();
    }
    // The fresh data folder could not create its stores: once space is back the daemon
    // asks systemd for a new process (exit 75) instead of running without them.
    rmSync(filler);
    const exit = await Promise.race([daemon!.exited, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
    assert.deepEqual(exit, { code: 75, signal: null }, daemon!.output().slice(-1500));
    await start(env({ VIGIL_DATA_DIR: fresh }));
    assert.equal((await health(daemon!.url)).storage.state, 'ok');
    assert.ok((await addWebhook(daemon!.url, 'fresh')).status < 300);
    await stop();
  });

  it('a commit that fails below the guard (no reserve) is a 507, not a crash; the daemon restarts itself once space is back', async (t) => {
    if (skip) return t.skip(skip);
    const dataDir = join(mnt, 'noreserve');
    await start(env({ VIGIL_DATA_DIR: dataDir, VIGIL_SERVER_STORAGE_RESERVE_MB: '0' }));
    assert.ok((await addWebhook(daemon!.url, 'kept')).status < 300);
    const filler = fill(mnt, 0);
    let refused: { status: number; body: Record<string, unknown> } | undefined;
    // LMDB's free pages may absorb a few small writes; the first one that needs new pages fails.
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await addWebhook(daemon!.url, `w${i}`.padEnd(2000, 'x'));
      if (r.status >= 300) refused = r;
    }
    assert.ok(refused, 'the disk never filled');
    assertErrorShape(refused.body, 507, 'STORAGE_FULL');
    assert.equal(daemon!.proc.exitCode, null, 'still running');
    assert.equal((await get(daemon!.url, '/api/v1/events/webhooks')).status, 200, 'reads work');
    assert.equal((await health(daemon!.url)).storage.state, 'failed');
    const stored = ((await get(daemon!.url, '/api/v1/events/webhooks')).body as unknown[]).length;
    rmSync(filler);
    const exit = await Promise.race([daemon!.exited, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
    assert.deepEqual(exit, { code: 75, signal: null }, daemon!.output().slice(-1500));
    await start(env({ VIGIL_DATA_DIR: dataDir, VIGIL_SERVER_STORAGE_RESERVE_MB: '0' }));
    const after = (await get(daemon!.url, '/api/v1/events/webhooks')).body as unknown as { url: string }[];
    assert.equal(after.length, stored, 'every acknowledged webhook is back');
    assert.ok(after.some((w) => w.url.endsWith('/kept')));
    assert.ok((await addWebhook(daemon!.url, 'again')).status < 300);
    await stop();
  });
});
