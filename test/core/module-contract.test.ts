import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODULE_NAMES, type ModuleName } from '../../src/config/schema.js';
import { EVENT_TYPES } from '../../src/core/event-types.js';
import { COMPONENTS } from '../../src/core/status-board.js';
import { MODULES } from '../../src/modules/index.js';
import { assertErrorShape, testApp } from '../helpers/app.js';

/** Every module with an `enabled` switch (face is always on). */
const SWITCHABLE = ['document', 'liveness', 'person', 'video', 'events', 'identity'] as const satisfies readonly ModuleName[];

// Guards: five modules answered MODULE_DISABLED five ways (a hook, a handler check, a null
// service...), so a route could slip through, or answer 400 before saying the module is off.
describe('module contract', () => {
  it('declares the eight modules, each once, after the modules it depends on', () => {
    const names = MODULES.map((m) => m.info.name);
    assert.deepEqual([...names].sort(), [...MODULE_NAMES, 'admin'].sort());
    for (const [i, m] of MODULES.entries()) {
      for (const dep of m.info.dependencies) assert.ok(names.indexOf(dep) < i, `${m.info.name} depends on ${dep}, registered after it`);
    }
  });

  it('every event type is emitted by some module', () => {
    const declared = new Set(MODULES.flatMap((m) => m.info.eventTypes));
    assert.deepEqual([...declared].sort(), [...EVENT_TYPES].sort());
  });

  it('a disabled module answers 503 MODULE_DISABLED on every one of its routes, the same way, before validation', async () => {
    const off = Object.fromEntries(SWITCHABLE.map((m) => [m, { enabled: false }]));
    const t = await testApp(off);
    try {
      const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
      const checked = new Map<string, number>();
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          const module = op.tags?.[0] ?? path.split('/')[3];
          if (!(SWITCHABLE as readonly string[]).includes(module!)) continue;
          // No body, no query, placeholder ids: a route that validated first would answer 400 or 404.
          const url = path.replace(/\{[^}]+\}/g, 'x');
          const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url });
          assert.equal(res.statusCode, 503, `${method} ${path}`);
          const body = res.json();
          assertErrorShape(body, 503, 'MODULE_DISABLED');
          assert.equal(body.message, `the ${module} module is disabled in the configuration (${module}.enabled: false)`, `${method} ${path}`);
          checked.set(module!, (checked.get(module!) ?? 0) + 1);
        }
      }
      // Every switchable module that has routes had them checked (person has none).
      assert.deepEqual([...checked.keys()].sort(), ['document', 'events', 'identity', 'liveness', 'video']);

      const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; module: string; loaded: boolean; reason?: string }[];
      for (const m of SWITCHABLE) {
        assert.deepEqual(health.status[m], { state: 'disabled', reason: 'disabled in configuration' }, m);
        assert.equal(health.modules[m], false, m);
        for (const c of models.filter((c) => c.module === m)) {
          assert.deepEqual({ loaded: c.loaded, reason: c.reason }, { loaded: false, reason: `disabled (${m}.enabled: false)` }, `${c.name}`);
        }
      }
      assert.equal(health.status.face.state, 'ok');
      // Every component row belongs to a module and is reported.
      assert.deepEqual(models.map((c) => c.name).sort(), Object.keys(COMPONENTS).sort());
    } finally {
      await t.close();
    }
  });

  it('a module whose start throws is failed in /admin/health with the lifecycle reason; the others still start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-contract-'));
    // A file where each LMDB folder should be: their starts throw.
    for (const folder of ['video', 'liveness', 'watchlists']) writeFileSync(join(dir, folder), 'not a folder');
    const t = await testApp({ video: { enabled: true } }, {}, dir);
    try {
      const health = await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' });
      assert.equal(health.statusCode, 503);
      const body = health.json();
      for (const m of ['video', 'liveness', 'identity'] as const) {
        const why = t.app.vigil.lifecycle.failures.get(m);
        assert.ok(why, `${m} start did not fail`);
        assert.equal(body.status[m].state, 'failed', m);
        assert.ok(body.status[m].reason.includes(why), `${m}: ${body.status[m].reason} lacks ${why}`);
        assert.ok(body.details[m].includes(why), m);
      }
      assert.equal(body.status.face.state, 'ok');
      assert.equal(body.status.document.state, 'ok');
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
