import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp } from '../helpers/app.js';

const EVENTS_ONLY = { document: { enabled: false }, identity: { enabled: false }, liveness: { enabled: false }, person: { enabled: false } };

describe('event history survives a restart', () => {
  it('keeps the newest events.history_size events across restarts, newest first, bounded on disk', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-history-'));
    try {
      const first = await testApp({ ...EVENTS_ONLY, events: { history_size: 5 } }, {}, dataDir);
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push(first.app.vigil.bus.emit('person_entered', 'video', { i }, 'cam').id);
      await first.close();

      // Regression (issue 19): the history was memory only and empty after every restart.
      const second = await testApp({ ...EVENTS_ONLY, events: { history_size: 5 } }, {}, dataDir);
      const after = (await second.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json();
      assert.deepEqual(
        after.map((e: { id: string }) => e.id),
        ids.slice(3).reverse(),
      );
      assert.deepEqual(after[0].data, { i: 7 });
      const more = second.app.vigil.bus.emit('line_crossed', 'video', { n: 1 }, 'cam').id;
      await second.close();

      // A smaller history_size keeps the newest and forgets the rest on disk too.
      const third = await testApp({ ...EVENTS_ONLY, events: { history_size: 2 } }, {}, dataDir);
      const small = (await third.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json();
      assert.deepEqual(
        small.map((e: { id: string }) => e.id),
        [more, ids[7]],
      );
      await third.close();
      const fourth = await testApp({ ...EVENTS_ONLY, events: { history_size: 10 } }, {}, dataDir);
      const grown = (await fourth.app.inject({ method: 'GET', url: '/api/v1/events/recent' })).json();
      assert.equal(grown.length, 2, 'records beyond the smaller size were removed, not hidden');
      await fourth.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
