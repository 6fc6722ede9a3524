import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadOpenCv } from '../../src/modules/document/opencv.js';
import { isLmdbWriteFailure } from '../../src/core/storage-guard.js';

describe('process-wide handlers', () => {
  /** Guards against issue 17.2: opencv.js installed an unhandledRejection handler that aborted the process (with a 10 MB log line). */
  it('loading opencv.js leaves the process handlers as they were', async () => {
    const before = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    await loadOpenCv();
    assert.deepEqual([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')], before);
  });

  it("recognises lmdb-js's failed-commit errors and nothing else", () => {
    assert.ok(isLmdbWriteFailure(Object.assign(new Error('Commit failed (see commitError for details)'), { commitError: Promise.resolve() })));
    assert.ok(isLmdbWriteFailure(Object.assign(new Error('No space left on device: Attempting to write page at position 1'), { code: 28 })));
    assert.ok(!isLmdbWriteFailure(new Error('something else')));
    assert.ok(!isLmdbWriteFailure('Commit failed'));
  });
});
