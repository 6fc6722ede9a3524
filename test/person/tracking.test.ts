import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { linearAssignment } from '../../src/modules/person/linear-assignment.js';
import { ByteTracker, defaultTrackerSettings } from '../../src/modules/person/bytetrack.js';
import { initiate, predict, update } from '../../src/modules/person/kalman-filter.js';
import { DetectionScheduler } from '../../src/modules/person/detection-scheduler.js';
import type { Detection } from '../../src/modules/person/yolox-detector.js';

/** Brute force over every partial matching: the reference for the Hungarian solver. */
function bruteForce(cost: number[][], limit: number): number {
  const rows = cost.length;
  const cols = cost[0]?.length ?? 0;
  let best = Infinity;
  const used = new Array<boolean>(cols).fill(false);
  const go = (r: number, acc: number) => {
    if (r === rows) {
      const unmatchedCols = used.filter((u) => !u).length;
      best = Math.min(best, acc + (unmatchedCols * limit) / 2);
      return;
    }
    go(r + 1, acc + limit / 2);
    for (let c = 0; c < cols; c++) {
      if (used[c] || cost[r]![c]! > limit) continue;
      used[c] = true;
      go(r + 1, acc + cost[r]![c]!);
      used[c] = false;
    }
  };
  go(0, 0);
  return best;
}

describe('linear assignment', () => {
  it('matches the brute-force optimum on random matrices, never above the limit', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 200; trial++) {
      const rows = 1 + Math.floor(rand() * 5);
      const cols = 1 + Math.floor(rand() * 5);
      const m = Array.from({ length: rows }, () => Array.from({ length: cols }, () => rand()));
      const limit = 0.2 + rand() * 0.8;
      const a = linearAssignment(Float64Array.from(m.flat()), rows, cols, limit);
      let total = ((a.unmatchedRows.length + a.unmatchedCols.length) * limit) / 2;
      for (const [r, c] of a.matches) {
        assert.ok(m[r]![c]! <= limit);
        total += m[r]![c]!;
      }
      assert.ok(Math.abs(total - bruteForce(m, limit)) < 1e-9, `trial ${trial}`);
      assert.equal(a.matches.length + a.unmatchedRows.length, rows);
      assert.equal(a.matches.length + a.unmatchedCols.length, cols);
    }
  });
  it('handles empty sides', () => {
    assert.deepEqual(linearAssignment(new Float64Array(0), 0, 3, 0.5), { matches: [], unmatchedRows: [], unmatchedCols: [0, 1, 2] });
  });
});

describe('Kalman filter', () => {
  it('learns a constant velocity', () => {
    const s = initiate([100, 100, 0.5, 80]);
    for (let i = 1; i <= 30; i++) {
      predict(s);
      update(s, [100 + 3 * i, 100, 0.5, 80]);
    }
    predict(s);
    assert.ok(Math.abs(s.mean[0]! - (100 + 3 * 31)) < 1, `predicted x ${s.mean[0]}`);
    assert.ok(Math.abs(s.mean[4]! - 3) < 0.2, `velocity ${s.mean[4]}`);
  });
});

const box = (x: number, y: number, score = 0.9): Detection => ({ x1: x, y1: y, x2: x + 30, y2: y + 80, score });

describe('ByteTrack', () => {
  it('keeps ids for people walking, confirms a track on its second hit', () => {
    const t = new ByteTracker(defaultTrackerSettings(0.5));
    const ids = new Set<number>();
    for (let f = 0; f < 40; f++) {
      const { tracks } = t.update([box(10 + 4 * f, 50), box(400 - 4 * f, 60)]);
      for (const tr of tracks) ids.add(tr.trackId);
    }
    // they pass each other at f ~ 48; up to f=40 two stable ids
    assert.deepEqual([...ids].sort(), [1, 2]);
    const t2 = new ByteTracker(defaultTrackerSettings(0.5));
    assert.equal(t2.update([box(0, 0)]).tracks.length, 1, 'first frame tracks are confirmed at once');
    // a new person after frame 1 needs a second hit to be reported
    assert.equal(t2.update([box(0, 0), box(200, 200)]).tracks.length, 1);
    assert.equal(t2.update([box(0, 0), box(202, 200)]).tracks.length, 2);
  });

  it('low-score detections carry a track through occlusion (second association)', () => {
    const t = new ByteTracker(defaultTrackerSettings(0.5));
    for (let f = 0; f < 10; f++) t.update([box(10 + 5 * f, 50)]);
    // partly occluded: the detector is unsure for 5 frames
    for (let f = 10; f < 15; f++)
      assert.deepEqual(
        t.update([box(10 + 5 * f, 50, 0.3)]).tracks.map((x) => x.trackId),
        [1],
      );
    assert.deepEqual(
      t.update([box(10 + 5 * 15, 50)]).tracks.map((x) => x.trackId),
      [1],
    );
  });

  it('two people passing each other keep their ids while one is hidden or both are boxed as one', () => {
    // Guards: the lost track of a person hidden behind a passer-by was dropped as the
    // passer-by's "duplicate" (IoU > 0.85), so the hidden person came back under a new id
    // or took the passer-by's, and both their line sides went with it.
    for (const hidden of ['behind', 'merged'] as const) {
      for (const speed of [3, 5, 8]) {
        for (const frames of [3, 5, 7]) {
          const t = new ByteTracker(defaultTrackerSettings(0.5));
          const meet = Math.round(150 / speed);
          const idsA = new Set<number>();
          const idsB = new Set<number>();
          for (let f = 0; f < 2 * meet; f++) {
            const ax = speed * f;
            const bx = 300 - speed * f;
            const occluded = Math.abs(f - meet) <= (frames - 1) / 2;
            const dets = !occluded ? [box(ax, 50), box(bx, 52)] : hidden === 'behind' ? [box(bx, 52)] : [{ x1: Math.min(ax, bx), y1: 50, x2: Math.max(ax, bx) + 40, y2: 150, score: 0.9 }];
            const { tracks } = t.update(dets);
            if (Math.abs(ax - bx) < 60) continue; // too close to say who is who
            for (const tr of tracks) (Math.abs(tr.x1 - ax) < Math.abs(tr.x1 - bx) ? idsA : idsB).add(tr.trackId);
          }
          const what = `${hidden}, speed ${speed}, ${frames} frames`;
          assert.deepEqual([idsA.size, idsB.size], [1, 1], what);
          assert.notDeepEqual([...idsA], [...idsB], what);
        }
      }
    }
  });

  it('re-finds a lost track within the buffer, drops it after', () => {
    const t = new ByteTracker(defaultTrackerSettings(0.5, 10));
    for (let f = 0; f < 10; f++) t.update([box(100 + 2 * f, 50)]);
    for (let f = 10; f < 15; f++) assert.equal(t.update([]).tracks.length, 0);
    assert.deepEqual(
      t.update([box(130, 50)]).tracks.map((x) => x.trackId),
      [1],
    );
    let removed: number[] = [];
    for (let f = 0; f < 12 && removed.length === 0; f++) removed = t.update([]).removed;
    assert.deepEqual(removed, [1]);
  });
});

describe('detection scheduler', () => {
  it('latest frame wins per camera, cameras served round-robin, one in flight per camera', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = new DetectionScheduler<string, string>(async (f) => {
      order.push(f);
      if (f === 'a1') await gate;
      return `done ${f}`;
    }, 1);
    const a1 = s.submit('a', 'a1');
    const a2 = s.submit('a', 'a2');
    const a3 = s.submit('a', 'a3');
    const b1 = s.submit('b', 'b1');
    release();
    assert.deepEqual(await Promise.all([a1, a2, a3, b1]), ['done a1', null, 'done a3', 'done b1']);
    // b had been waiting longer than the newest a frame: served first
    assert.deepEqual(order, ['a1', 'b1', 'a3']);
    assert.deepEqual(s.stats, { processed: 3, dropped: 1, failed: 0 });
  });
});
