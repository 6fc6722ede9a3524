import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { CountHistory, type BucketCounts } from '../../src/modules/video/count-history.js';
import { makeLine, makeZone } from '../../src/modules/video/counting/rules.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { testdata } from '../helpers/paths.js';
import { VIDEO_TEST_CONFIG, waitFor, addPetsCameraWithRules } from '../helpers/video.js';

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
const MIN = 60_000;

describe('count history store (LMDB)', () => {
  let dir: string;
  let root: RootDatabase;
  let h: CountHistory;
  const line = makeLine({
    rule_id: 'door',
    points: [
      [0, 0.5],
      [1, 0.5],
    ],
  });
  const zone = makeZone({
    rule_id: 'desk',
    points: [
      [0, 0],
      [1, 0],
      [1, 1],
    ],
  });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-history-'));
    root = open({ path: dir });
    h = new CountHistory(root.openDB<BucketCounts, string>({ name: 'history' }));
  });
  after(async () => {
    await root.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sums 15-minute buckets into hours and days, keeps the peak, pages whole buckets, prunes and forgets a rule', async () => {
    await h.add('cam', line, 'in', 0, T0 + 1 * MIN);
    await h.add('cam', line, 'in', 0, T0 + 16 * MIN);
    await h.add('cam', line, 'out', 0, T0 + 70 * MIN);
    await h.add('cam', zone, 'entered', 1, T0 + 2 * MIN);
    await h.add('cam', zone, 'entered', 2, T0 + 3 * MIN);
    await h.add('cam', zone, 'exited', 1, T0 + 20 * MIN);
    await h.add('other', line, 'in', 0, T0 + 1 * MIN);

    const q15 = h.query('cam', T0, T0 + 86_400_000, 15 * MIN, 100);
    assert.deepEqual(
      q15.rows.map((r) => [r.start.slice(11, 16), r.rule_id, r.in, r.out, r.entered, r.exited, r.peak_occupancy]),
      [
        ['10:00', 'desk', 0, 0, 2, 0, 2],
        ['10:00', 'door', 1, 0, 0, 0, 0],
        ['10:15', 'desk', 0, 0, 0, 1, 1],
        ['10:15', 'door', 1, 0, 0, 0, 0],
        ['11:00', 'door', 0, 1, 0, 0, 0],
      ],
    );
    const q1h = h.query('cam', T0, T0 + 86_400_000, 60 * MIN, 100);
    assert.deepEqual(
      q1h.rows.map((r) => [r.start.slice(11, 16), r.rule_id, r.in, r.out, r.entered, r.exited, r.peak_occupancy]),
      [
        ['10:00', 'desk', 0, 0, 2, 1, 2],
        ['10:00', 'door', 2, 0, 0, 0, 0],
        ['11:00', 'door', 0, 1, 0, 0, 0],
      ],
    );
    const q1d = h.query('cam', T0 - 10 * 3_600_000, T0 + 86_400_000, 86_400_000, 100, 'door');
    assert.deepEqual(
      q1d.rows.map((r) => [r.start, r.in, r.out]),
      [['2026-01-05T00:00:00.000Z', 2, 1]],
    );

    // Pages of at most 2 rows never split a bucket; following next_from visits every row once.
    const seen: string[] = [];
    let from = T0;
    for (let page = 0; page < 10; page++) {
      const p = h.query('cam', from, T0 + 86_400_000, 15 * MIN, 2);
      seen.push(...p.rows.map((r) => `${r.start}/${r.rule_id}`));
      if (p.next === null) break;
      from = p.next;
    }
    assert.deepEqual(
      seen,
      q15.rows.map((r) => `${r.start}/${r.rule_id}`),
    );

    assert.equal(await h.prune(['cam'], T0 + 30 * MIN), 4);
    assert.deepEqual(
      h.query('cam', T0, T0 + 86_400_000, 15 * MIN, 100).rows.map((r) => r.start.slice(11, 16)),
      ['11:00'],
    );
    await h.remove('cam', 'door');
    assert.deepEqual(h.query('cam', T0, T0 + 86_400_000, 15 * MIN, 100).rows, []);
    assert.equal(h.query('other', T0, T0 + 86_400_000, 15 * MIN, 100).rows.length, 1, 'other cameras untouched');
  });
});

describe('count history API, end of stream and restart', () => {
  let dir: string;
  let clip: string;
  let t: TestApp;
  const config = { video: { ...VIDEO_TEST_CONFIG, track_faces: false } };
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json() };
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-history-api-'));
    clip = join(dir, 'pets-120.avi');
    execFileSync(ffmpeg.path, ['-v', 'error', '-y', '-i', testdata('video', 'PETS09-S2L1', 'vtest.avi'), '-frames:v', '120', '-c', 'copy', clip]);
    t = await testApp(config, {}, join(dir, 'data'));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('history sums to the counts; zones empty at the end of a file; an ended file stays ended and counts nothing twice after a restart', async () => {
    await addPetsCameraWithRules(t.app, clip);
    await waitFor('the clip to end', async () => (await get('/api/v1/video/cameras/pets')).body.status === 'ended', 60_000, 500);
    await new Promise((r) => setTimeout(r, 1000));
    const counts = (await get('/api/v1/video/cameras/pets/counts')).body;
    const mid = counts.lines[0];
    const lower = counts.zones[0];
    assert.ok(mid.in + mid.out > 0 && lower.entered > 0, JSON.stringify(counts));
    // Guards the bug where people inside a zone when a file ended never exited.
    assert.equal(lower.occupancy, 0);
    assert.equal(lower.exited, lower.entered);

    const hist = await get('/api/v1/video/cameras/pets/counts/history?bucket=1d');
    assert.equal(hist.status, 200, JSON.stringify(hist.body));
    const sum = (id: string, k: string) => hist.body.rows.filter((r: { rule_id: string }) => r.rule_id === id).reduce((s: number, r: Record<string, number>) => s + r[k]!, 0);
    assert.deepEqual([sum('mid', 'in'), sum('mid', 'out'), sum('lower', 'entered'), sum('lower', 'exited')], [mid.in, mid.out, lower.entered, lower.exited]);
    assert.ok(sum('lower', 'peak_occupancy') >= 1);
    assert.equal(hist.body.next_from, null);

    for (const q of ['bucket=2h', 'from=yesterday', 'from=2026-01-02&to=2026-01-01', 'limit=0', 'what=1']) {
      const bad = await t.app.inject({ method: 'GET', url: `/api/v1/video/cameras/pets/counts/history?${q}` });
      assert.equal(bad.statusCode, 400, q);
      assertErrorShape(bad.json(), 400);
    }
    assert.equal((await get('/api/v1/video/cameras/nope/counts/history')).status, 404);
    assert.equal((await get('/api/v1/video/cameras/pets/counts/history?rule_id=nope')).status, 404);

    // Guards the bug where a file camera that had ended was replayed after a restart and counted again.
    await t.app.close();
    t = await testApp(config, {}, join(dir, 'data'));
    await new Promise((r) => setTimeout(r, 3000));
    const cam = (await get('/api/v1/video/cameras/pets')).body;
    assert.equal(cam.status, 'ended');
    assert.match(cam.last_error, /not replayed after a restart/);
    assert.deepEqual((await get('/api/v1/video/cameras/pets/counts')).body.lines[0], mid);
    assert.deepEqual((await get('/api/v1/video/cameras/pets/counts/history?bucket=1d')).body.rows, hist.body.rows);
  });
});
