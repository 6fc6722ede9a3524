import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/core/logger.js';
import { AbuseLimiter } from '../../src/modules/liveness/abuse-limiter.js';
import { assertErrorShape, testApp } from '../helpers/app.js';

const log = createLogger('silent');
const T0 = Date.UTC(2026, 0, 1);

function rejects(fn: () => void, code: string, retryAfter: number): void {
  assert.throws(fn, (e: Error & { statusCode?: number; code?: string; retryAfterSeconds?: number }) => {
    assert.equal(e.statusCode, 429);
    assert.equal(e.code, code);
    assert.equal(e.retryAfterSeconds, retryAfter);
    return true;
  });
}

describe('abuse limiter', () => {
  it('limits sessions per address in a sliding window, per address', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-abuse-'));
    const l = new AbuseLimiter(dir, { windowMs: 60_000, maxSessions: 3, maxFailures: 0 }, log);
    l.open();
    try {
      l.admitSession('10.0.0.1', T0);
      l.admitSession('10.0.0.1', T0 + 10_000);
      l.admitSession('10.0.0.1', T0 + 20_000);
      rejects(() => l.admitSession('10.0.0.1', T0 + 30_000), 'TOO_MANY_SESSIONS', 30);
      l.admitSession('10.0.0.2', T0 + 30_000);
      l.admitSession('10.0.0.1', T0 + 60_001); // the first one left the window
    } finally {
      await l.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses new sessions after too many failures, and the counters survive a restart (LMDB)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-abuse-'));
    try {
      const settings = { windowMs: 900_000, maxSessions: 0, maxFailures: 2 };
      const a = new AbuseLimiter(dir, settings, log);
      a.open();
      a.admitSession('10.0.0.9', T0);
      a.recordFailure('10.0.0.9', T0 + 1000);
      a.recordFailure('10.0.0.9', T0 + 2000);
      rejects(() => a.admitSession('10.0.0.9', T0 + 3000), 'TOO_MANY_FAILURES', 898);
      await a.close();
      const b = new AbuseLimiter(dir, settings, log);
      b.open();
      rejects(() => b.admitSession('10.0.0.9', T0 + 3000), 'TOO_MANY_FAILURES', 898);
      assert.deepEqual(b.counts('10.0.0.9', T0 + 3000), { sessions: 1, failures: 2 });
      b.admitSession('10.0.0.9', T0 + 901_001);
      assert.equal(b.prune(T0 + 2_000_000), 1, 'records with nothing in the window are dropped');
      await b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('abuse limits over HTTP', () => {
  it('429 TOO_MANY_SESSIONS with Retry-After; cancelling an attempt counts as a failure; TOO_MANY_FAILURES survives a restart', async () => {
    const overrides = { liveness: { abuse_max_sessions: 3, abuse_max_failures: 1, abuse_window_seconds: 600 } };
    const t = await testApp(overrides);
    const dataDir = t.dataDir;
    try {
      const create = () => t.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions' });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await create();
        assert.equal(r.statusCode, 200);
        ids.push(r.json().session_id);
      }
      const fourth = await create();
      assert.equal(fourth.statusCode, 429);
      assertErrorShape(fourth.json(), 429, 'TOO_MANY_SESSIONS');
      assert.ok(Number(fourth.headers['retry-after']) > 0 && Number(fourth.headers['retry-after']) <= 600);
      assert.equal(fourth.json().client_address, '127.0.0.1');
      // Cancelling a pending session is not a failure; an abandoned attempt (after a frame) is.
      await t.app.inject({ method: 'DELETE', url: `/api/v1/liveness/sessions/${ids[0]}` });
      assert.deepEqual(t.app.liveness.limiter.counts('127.0.0.1', Date.now()), { sessions: 3, failures: 0 });
      t.app.liveness.store.get(ids[1]!).acceptFrame(Date.now());
      await t.app.inject({ method: 'DELETE', url: `/api/v1/liveness/sessions/${ids[1]}` });
      assert.deepEqual(t.app.liveness.limiter.counts('127.0.0.1', Date.now()), { sessions: 3, failures: 1 });
    } finally {
      await t.app.close();
    }
    // A restart on the same data folder keeps the counters.
    const t2 = await testApp(overrides, {}, dataDir);
    try {
      const r = await t2.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions' });
      assert.equal(r.statusCode, 429);
      assertErrorShape(r.json(), 429, 'TOO_MANY_FAILURES');
    } finally {
      await t2.app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('liveness disabled', () => {
  it('answers 503 MODULE_DISABLED and reports active_liveness not loaded', async () => {
    const t = await testApp({ liveness: { enabled: false } });
    try {
      for (const [method, url] of [
        ['POST', '/api/v1/liveness/sessions'],
        ['GET', '/api/v1/liveness/sessions/x'],
        ['DELETE', '/api/v1/liveness/sessions/x'],
      ] as const) {
        const r = await t.app.inject({ method, url });
        assert.equal(r.statusCode, 503, url);
        assertErrorShape(r.json(), 503, 'MODULE_DISABLED');
      }
      const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean; reason?: string }[];
      const al = models.find((m) => m.name === 'active_liveness');
      assert.equal(al?.loaded, false);
      assert.match(al?.reason ?? '', /disabled/);
    } finally {
      await t.close();
    }
  });
});

describe('abuse counters cannot be stored', () => {
  it('health says why; creating a session answers 503, the daemon keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-abuse-'));
    writeFileSync(join(dir, 'liveness'), 'a file where the LMDB folder should be');
    const t = await testApp({}, {}, dir);
    try {
      const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.equal(health.modules.liveness, false);
      assert.match(health.details.liveness, /did not start/);
      const r = await t.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions' });
      assert.equal(r.statusCode, 503);
      assertErrorShape(r.json(), 503, 'LIVENESS_UNAVAILABLE');
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).statusCode, 200);
    } finally {
      await t.app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
