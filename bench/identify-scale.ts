// 1:N search at gallery scale: 10k, 100k and 1M samples (random unit vectors plus the real
// embeddings of the shared identities) written to LMDB, then, in a fresh process per size:
// load time from LMDB at start-up, resident memory, search p50/p95 through the service's
// match path (index scan + exact re-rank on the face service's calibrated scale + LMDB
// label lookup), the exact float32 scan and the int8 scan side by side, recall@1 of the
// int8 scan against exact search, the start-up after a clean stop (from the index snapshot,
// again in a fresh process), rank-1 of the real probes, and a plain JavaScript
// brute-force loop over a Float32Array measured in the same process as the baseline.
//   node --import tsx bench/identify-scale.ts [--sizes 10000,100000,1000000] [--queries 200]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/config/load.js';
import { EventBus } from '../src/core/event-bus.js';
import { IdentityService } from '../src/modules/identity/identity-service.js';
import { WatchlistStore } from '../src/modules/identity/watchlist-store.js';
import { packageRoot } from '../src/core/package-root.js';
import { near, randomUnit, seeded } from '../test/identity/vectors.js';
import { faceService, realFaces } from './lib/identity-fixtures.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    queries: { type: 'string', default: '200' },
    'baseline-queries': { type: 'string', default: '10' },
    phase: { type: 'string' },
    size: { type: 'string' },
    dir: { type: 'string' },
  },
});
const WATCHLIST = 'scale';
const MB = 2 ** 20;
const silent = pino({ level: 'silent' });

function configFor(dir: string) {
  return loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dir }, face: { enable_liveness: false } } });
}

/** Phase 1 (own process): the first photo of each real identity plus N - 14 random vectors into LMDB. */
async function write(size: number, dir: string) {
  const config = configFor(dir);
  const face = await faceService(config);
  const real = await realFaces(face, config);
  const firsts = [...new Map(real.map((r) => [r.identity, r])).values()];
  const store = new WatchlistStore(config.identity.watchlist_dir);
  store.open();
  const t0 = performance.now();
  const model = face.recognizerName;
  const put = (id: string, e: Float32Array) =>
    store.addSamples({ identityId: id, label: id, watchlist: WATCHLIST, metadata: undefined, samples: [{ embedding: e, model, source: 'enroll', quality: null }] }, () => {});
  for (const r of firsts) await put(`real-${r.identity}`, r.embedding);
  const rand = seeded(size);
  const dim = firsts[0]!.embedding.length;
  let pending: Promise<unknown>[] = [];
  for (let i = firsts.length; i < size; i++) {
    pending.push(put(`r-${i}`, randomUnit(dim, rand)));
    if (pending.length === 20000) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  await store.close();
  return { write_s: (performance.now() - t0) / 1000, dim };
}

function plainBruteForce(all: Float32Array, dim: number, q: Float32Array): number {
  let best = -Infinity;
  let bi = -1;
  const n = all.length / dim;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < dim; j++) s += all[i * dim + j]! * q[j]!;
    if (s > best) {
      best = s;
      bi = i;
    }
  }
  return bi;
}

/** Phase 2 (fresh process): load, memory, search timings, recall, baseline. */
async function measure(size: number, dir: string, queries: number, baselineQueries: number) {
  const config = configFor(dir);
  const face = await faceService(config);
  const real = await realFaces(face, config);
  const firstFile = new Map<string, string>();
  for (const r of real) if (!firstFile.has(r.identity)) firstFile.set(r.identity, r.file);
  const probes = real.filter((r) => firstFile.get(r.identity) !== r.file);
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const service = new IdentityService({ config, log: silent, bus: new EventBus(silent), face, store: new WatchlistStore(config.identity.watchlist_dir) });
  service.start();
  const loadS = service.loadMs / 1000;
  global.gc?.();
  const rssAfter = process.memoryUsage().rss;
  const index = service.indexOf(WATCHLIST)!;
  const dim = index.dim;

  // Queries: the real probes (other photos of enrolled people) and random unit vectors, plus
  // near-duplicates of random gallery rows (cosine 0.6) so recall is also tested on hits deep
  // inside the random part of the gallery.
  const rand = seeded(7);
  const randomQ = Array.from({ length: queries }, () => randomUnit(dim, rand));
  const matrixRows = (index as unknown as { matrix: { row(i: number): Float32Array } }).matrix;
  const nearQ = Array.from({ length: queries }, () => near(matrixRows.row(Math.floor(rand() * index.samples)), 0.6, rand));

  const opts = (exactMax: number) => ({ topK: 5, rerank: config.identity.rerank_candidates, exactMax });
  const time = (qs: Float32Array[], fn: (q: Float32Array) => unknown) => {
    for (const q of qs.slice(0, 5)) fn(q);
    return summarize(
      qs.map((q) => {
        const t0 = performance.now();
        fn(q);
        return performance.now() - t0;
      }),
    );
  };
  const exact = time(randomQ, (q) => index.search(q, opts(Infinity)));
  const int8 = time(randomQ, (q) => index.search(q, opts(0)));
  const service5 = time(
    probes.map((p) => p.embedding),
    (q) => service.match(q, WATCHLIST, 5, 0.4),
  );
  // recall@1 of the int8 path against exact search, per query kind
  const recall = (qs: Float32Array[]) => qs.filter((q) => index.search(q, opts(0)).hits[0]?.identityId === index.search(q, opts(Infinity)).hits[0]?.identityId).length / qs.length;
  const rank1 = probes.filter((p) => service.match(p.embedding, WATCHLIST, 1, 0)[0]?.identity_id === `real-${p.identity}`).length / probes.length;

  // Baseline: the plain JS loop everybody writes first, over a Float32Array of the gallery.
  const all = new Float32Array(index.samples * dim);
  for (let i = 0; i < index.samples; i++) all.set(matrixRows.row(i), i * dim);
  const baseline = time(randomQ.slice(0, baselineQueries), (q) => plainBruteForce(all, dim, q));
  const agree = randomQ.slice(0, baselineQueries).every((q) => {
    const bi = plainBruteForce(all, dim, q);
    return (index as unknown as { rowIdentity: string[] }).rowIdentity[bi] === index.search(q, opts(Infinity)).hits[0]?.identityId;
  });
  const dbBytes = statSync(join(config.identity.watchlist_dir, 'data.mdb')).size;
  await service.stop();
  return {
    size,
    dim,
    samples: index.samples,
    load_s: loadS,
    rss_mb: rssAfter / MB,
    rss_index_mb: (rssAfter - rssBefore) / MB,
    wasm_mb: index.bytes / MB,
    db_mb: dbBytes / MB,
    exact,
    int8,
    service: service5,
    baseline,
    baseline_agrees: agree,
    recall_random: recall(randomQ),
    recall_near: recall(nearQ),
    recall_real: recall(probes.map((p) => p.embedding)),
    rank1_real: rank1,
    probes: probes.length,
    mode: size <= config.identity.exact_search_max ? 'exact' : 'int8',
  };
}

/** Phase 3 (fresh process): the start-up after a clean stop, from the index snapshot. */
async function reload(dir: string) {
  const config = configFor(dir);
  const face = await faceService(config);
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const service = new IdentityService({ config, log: silent, bus: new EventBus(silent), face, store: new WatchlistStore(config.identity.watchlist_dir) });
  service.start();
  global.gc?.();
  const rssAfter = process.memoryUsage().rss;
  const out = { from: service.loadedFrom, load_s: service.loadMs / 1000, rss_mb: rssAfter / MB, rss_index_mb: (rssAfter - rssBefore) / MB };
  await service.stop();
  return out;
}

if (values.phase === 'write') {
  console.log(JSON.stringify(await write(Number(values.size), values.dir!)));
} else if (values.phase === 'reload') {
  console.log(JSON.stringify(await reload(values.dir!)));
} else if (values.phase === 'measure') {
  console.log(JSON.stringify(await measure(Number(values.size), values.dir!, Number(values.queries), Number(values['baseline-queries']))));
} else {
  console.log(machineLine());
  console.log('(2 shared cores: other sessions load this box; figures move with the load average above)\n');
  const rows: string[] = [];
  for (const size of values.sizes!.split(',').map(Number)) {
    const dir = mkdtempSync(join(tmpdir(), `vigil-scale-${size}-`));
    try {
      const run = (phase: string) => {
        const res = spawnSync(
          process.execPath,
          [
            '--expose-gc',
            '--max-old-space-size=8192',
            '--import',
            'tsx',
            'bench/identify-scale.ts',
            '--phase',
            phase,
            '--size',
            String(size),
            '--dir',
            dir,
            '--queries',
            values.queries!,
            '--baseline-queries',
            values['baseline-queries']!,
          ],
          { cwd: packageRoot(), encoding: 'utf8', maxBuffer: 1 << 24 },
        );
        if (res.status !== 0) throw new Error(`${phase} ${size} failed:\n${res.stderr}`);
        return JSON.parse(res.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
      };
      const w = run('write') as { write_s: number };
      const m = run('measure') as unknown as Awaited<ReturnType<typeof measure>>;
      const r = run('reload') as unknown as Awaited<ReturnType<typeof reload>>;
      console.log(
        `${size}: written in ${w.write_s.toFixed(1)} s; ${JSON.stringify({ ...m, exact: undefined, int8: undefined, service: undefined, baseline: undefined })}; restart ${JSON.stringify(r)}`,
      );
      console.log(
        `  p50/p95 ms: identify path ${fmt(m.service.p50)}/${fmt(m.service.p95)}, exact ${fmt(m.exact.p50)}/${fmt(m.exact.p95)}, int8 ${fmt(m.int8.p50)}/${fmt(m.int8.p95)}, plain JS ${fmt(m.baseline.p50)}/${fmt(m.baseline.p95)}`,
      );
      rows.push(
        `| ${size.toLocaleString('en')} | ${m.mode} | ${fmt(m.service.p50)} / ${fmt(m.service.p95)} | ${fmt(m.exact.p50)} / ${fmt(m.exact.p95)} | ${fmt(m.int8.p50)} / ${fmt(m.int8.p95)} | ${fmt(m.baseline.p50)} | ${(m.baseline.p50 / m.int8.p50).toFixed(0)}x | ${m.recall_random.toFixed(3)} / ${m.recall_near.toFixed(3)} / ${m.recall_real.toFixed(3)} | ${(m.rank1_real * 100).toFixed(1)}% | ${m.load_s.toFixed(1)} s / ${r.load_s.toFixed(1)} s | ${m.rss_mb.toFixed(0)} / ${r.rss_mb.toFixed(0)} (+${r.rss_index_mb.toFixed(0)}) | ${m.db_mb.toFixed(0)} |`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(
    '\n| gallery | default mode | identify path p50 / p95 ms | exact f32 scan p50 / p95 | int8 scan + re-rank p50 / p95 | plain JS loop p50 | int8 vs plain | recall@1 int8 vs exact (random / near / real) | rank-1 real | start-up load: LMDB walk / snapshot | RSS MB after: LMDB walk / snapshot (+index) | LMDB MB |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}
