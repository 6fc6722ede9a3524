import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageFullError, StorageGuard } from '../../src/core/storage-guard.js';
import { makeLine } from '../../src/modules/video/counting/rules.js';
import { VideoStore } from '../../src/modules/video/video-store.js';

/** A guard whose free space the test sets (the real statfs path is covered by test/process/storage-full). */
class SetFreeGuard extends StorageGuard {
  free: number | null = 1e12;
  override freeBytes(): number | null {
    return this.free;
  }
}

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);

describe('count history on a full disk', () => {
  let dir: string;
  let guard: SetFreeGuard;
  let store: VideoStore;
  const line = makeLine({
    rule_id: 'door',
    points: [
      [0, 0.5],
      [1, 0.5],
    ],
  });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-history-full-'));
    guard = new SetFreeGuard(dir, 8 * 1024 * 1024);
    store = new VideoStore(dir, guard);
    store.open();
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Guards: the history database was opened beside the storage guard, so a full disk reached LMDB (a crash, not a 507).
  it('refuses bucket writes and pruning with 507 STORAGE_FULL, keeps what was stored readable, and writes again when space returns', async () => {
    await store.history.add('cam', line, 'in', 0, T0);
    guard.free = 0;
    const is507 = (err: unknown) => err instanceof StorageFullError && err.statusCode === 507 && err.code === 'STORAGE_FULL';
    await assert.rejects(store.history.add('cam', line, 'in', 0, T0 + 60_000), is507);
    await assert.rejects(store.history.prune(['cam'], T0 + 86_400_000), is507);
    assert.equal(store.history.get('cam', line, T0).in, 1, 'the stored bucket is still read while the disk is full');

    guard.free = 1e12;
    await store.history.add('cam', line, 'in', 0, T0 + 120_000);
    assert.equal(store.history.get('cam', line, T0).in, 2);
  });
});
