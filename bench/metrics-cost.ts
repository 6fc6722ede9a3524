/**
 * What the Prometheus metrics cost one /detect request, measured directly (issue 19 target:
 * /detect throughput with metrics on >= 0.98x off). End-to-end A/B runs (bench/metrics.ts) on this
 * shared box cannot resolve 2%: two identical daemons already differ by several percent. So:
 *
 *  1. Record: real /detect requests (one-face 640x480 JPEG) on the in-process app with metrics on,
 *     noting every instrument call the request makes (the HTTP onResponse hook, the inference
 *     histograms per model run, the event counter) with its labels, and how many garbage
 *     collections it causes (each observed by the default GC collector; the bench's own client
 *     allocates in the same process, so this overcounts). The same run times the request on a
 *     spawned daemon with metrics off: CPU per request under 4 clients, the whole process and its
 *     main thread (where the metrics code runs), from the kernel's run time of each thread.
 *  2. Replay that exact sequence on a fresh registry, in interleaved rounds (on, off, off, on), against
 *     what the metrics-off daemon still does per request (observeInference's running mean for the
 *     MQTT box statistics): CPU microseconds per request, median of rounds with a bootstrap 95% CI.
 *  3. The hook with fastify's own dispatch: inject() of a trivial route on two fastify instances,
 *     one with installHttpMetrics, in interleaved rounds: CPU microseconds per request.
 * Rounds are timed in CPU time (process.cpuUsage), not wall time: on a loaded box a round's wall
 * time is mostly the slices other processes ran in, and that noise is what hid 2% end to end.
 * The cost is (2) + the part of (3) beyond the hook body, divided by the request's time.
 *
 *   node --import tsx bench/metrics-cost.ts [--requests 40] [--iterations 20000] [--rounds 30] [--seed S]
 */
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Fastify from 'fastify';
import sharp from 'sharp';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { installHttpMetrics, recordHttp } from '../src/core/http-metrics.js';
import { Metrics } from '../src/core/metrics.js';
import { packageRoot } from '../src/core/package-root.js';
import { multipart, type Part } from '../test/helpers/multipart.js';
import { procCpu } from './lib/proc-cpu.js';
import { freshSeed, seededRandom } from './lib/seeded.js';
import { bootstrapMedianCi, fmt, machineLine, median, summarize } from './lib/stats.js';
import { numberArg } from './lib/cli-args.js';
import { spawnFaceOnlyDaemon } from './lib/face-only-daemon.js';

const REQUESTS = numberArg('--requests', 40);
const ITERATIONS = numberArg('--iterations', 20_000);
const ROUNDS = numberArg('--rounds', 30);
const SEED = numberArg('--seed', freshSeed());
const random = seededRandom(SEED);

/** One /detect request's instrument calls, in order. */
interface Recorded {
  http: { method: string; url: string; statusCode: number; elapsedMs: number }[];
  inference: { model: string; wait: number; run: number }[];
  events: string[];
  gcs: number;
}

async function detectParts(): Promise<Part[]> {
  const faces = join(packageRoot(), '..', 'shared', 'testdata', 'faces', 'identities', 'fr_barack_obama');
  const jpeg = await sharp(join(faces, 'obama.jpg')).resize(640, 480, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer();
  return [{ name: 'image', file: jpeg, contentType: 'image/jpeg' }];
}

/** Part 1: what /detect touches, and what it costs, on the in-process app with metrics on. */
async function record(parts: Part[]): Promise<Recorded> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-metrics-cost-'));
  const config = loadConfig({
    env: {},
    overrides: {
      document: { enabled: false },
      identity: { enabled: false },
      liveness: { enabled: false },
      person: { enabled: false },
      server: { log_level: 'silent', data_dir: dataDir, metrics: true },
      limits: { inference_queue: 16 },
    },
  });
  const app = await buildApp(config);
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 8 });
  try {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const post = async () => {
      const { payload, headers } = multipart(parts);
      const res = await request(`${base}/api/v1/detect`, { method: 'POST', body: payload, headers, dispatcher: agent });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`/detect: ${res.statusCode} ${body}`);
    };
    for (let i = 0; i < 8; i++) await post();

    const m = app.vigil.metrics;
    const rec: Recorded = { http: [], inference: [], events: [], gcs: 0 };
    const observeInference = m.observeInference.bind(m);
    m.observeInference = (model, wait, run) => {
      rec.inference.push({ model, wait, run });
      observeInference(model, wait, run);
    };
    const eventsInc = m.events.inc.bind(m.events);
    m.events.inc = ((labels: { type: string }) => {
      rec.events.push(labels.type);
      eventsInc(labels);
    }) as typeof m.events.inc;
    const httpObserve = m.httpDuration.observe.bind(m.httpDuration);
    m.httpDuration.observe = ((labels: { method: string; route: string; status: string }, value: number) => {
      rec.http.push({ method: labels.method, url: labels.route, statusCode: Number(labels.status), elapsedMs: value * 1000 });
      httpObserve(labels, value);
    }) as typeof m.httpDuration.observe;
    const gc = new PerformanceObserver((list) => (rec.gcs += list.getEntries().length));
    gc.observe({ entryTypes: ['gc'] });

    for (let i = 0; i < REQUESTS; i++) await post();
    gc.disconnect();
    const n = REQUESTS;
    const perRequest: Recorded = {
      http: rec.http.slice(0, rec.http.length / n),
      inference: rec.inference.slice(0, Math.round(rec.inference.length / n)),
      events: rec.events.slice(0, Math.round(rec.events.length / n)),
      gcs: rec.gcs / n,
    };
    if (rec.http.length !== n) throw new Error(`expected ${n} HTTP observations, got ${rec.http.length}`);
    if (rec.inference.length % n !== 0) console.log(`note: ${rec.inference.length} model runs over ${n} requests is not a whole number per request`);
    return perRequest;
  } finally {
    await agent.close();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The request's own cost, same run: a spawned daemon with metrics off, 4 clients, CPU per request. */
async function requestCost(parts: Part[]): Promise<{ totalMs: number; mainMs: number; wallP50: number }> {
  const d = await spawnFaceOnlyDaemon(false);
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 8 });
  try {
    const post = async () => {
      const { payload, headers } = multipart(parts);
      const t0 = performance.now();
      const res = await request(`${d.url}/api/v1/detect`, { method: 'POST', body: payload, headers, dispatcher: agent });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`/detect: ${res.statusCode} ${body}`);
      return performance.now() - t0;
    };
    const wall: number[] = [];
    for (let i = 0; i < 8; i++) wall.push(await post());
    const pid = d.proc.pid!;
    const c0 = procCpu(pid);
    let left = REQUESTS;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (left-- > 0) await post();
      }),
    );
    const c1 = procCpu(pid);
    return { totalMs: (c1.totalMs - c0.totalMs) / REQUESTS, mainMs: (c1.mainMs - c0.mainMs) / REQUESTS, wallP50: summarize(wall.slice(3)).p50 };
  } finally {
    await agent.close();
    d.proc.kill('SIGTERM');
    await d.exited;
    rmSync(d.dataDir, { recursive: true, force: true });
  }
}

/**
 * Part 2: one request's instrument calls replayed `iterations` times. With metrics on: the HTTP
 * hook's body, observeInference per model run (its two histograms), the event counter, and one
 * GC-collector observation per collection the request caused. With metrics off: what the
 * daemon still does (observeInference keeps a running mean for the MQTT box statistics).
 */
function replay(r: Recorded, metrics: Metrics, iterations: number): number {
  const gcHistogram = metrics.registry.getSingleMetric('vigil_nodejs_gc_duration_seconds') as { observe(l: { kind: string }, v: number): void } | undefined;
  if (metrics.enabled && !gcHistogram) throw new Error('no GC histogram in the registry');
  const http = r.http.map((h) => ({ request: { method: h.method, routeOptions: { url: h.url } } as never, reply: { statusCode: h.statusCode, elapsedTime: h.elapsedMs } as never }));
  let gcOwed = 0;
  const t0 = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    for (const inf of r.inference) metrics.observeInference(inf.model, inf.wait, inf.run);
    if (metrics.enabled) {
      for (const type of r.events) metrics.events.inc({ type });
      for (const h of http) recordHttp(metrics, h.request, h.reply);
      gcOwed += r.gcs;
      for (; gcOwed >= 1; gcOwed--) gcHistogram!.observe({ kind: 'minor' }, 0.0005);
    }
  }
  return cpuMicros(t0) / iterations;
}

/**
 * CPU microseconds of this process since `t0` (user + system, from the kernel's exact run time):
 * on a loaded box, wall time counts the slices other processes ran in; CPU time does not.
 */
function cpuMicros(t0: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(t0);
  return c.user + c.system;
}

/** Interleaved rounds (A B B A), each side timed per item; returns the per-round differences A - B. */
function interleaved(rounds: number, a: () => number, b: () => number): number[] {
  const diffs: number[] = [];
  for (let k = 0; k < rounds; k++) {
    const a1 = a();
    const b1 = b();
    const b2 = b();
    const a2 = a();
    diffs.push((a1 + a2 - b1 - b2) / 2);
  }
  return diffs;
}

async function injectRounds(rounds: number, perRound: number): Promise<number[]> {
  const withHook = Fastify();
  const without = Fastify();
  installHttpMetrics(withHook, new Metrics(false));
  for (const f of [withHook, without]) f.post('/api/v1/detect', async () => ({ faces: [], count: 0 }));
  await Promise.all([withHook.ready(), without.ready()]);
  const time = async (f: typeof withHook) => {
    const t0 = process.cpuUsage();
    for (let i = 0; i < perRound; i++) await f.inject({ method: 'POST', url: '/api/v1/detect' });
    return cpuMicros(t0) / perRound;
  };
  await time(withHook);
  await time(without);
  const diffs: number[] = [];
  for (let k = 0; k < rounds; k++) {
    const a1 = await time(withHook);
    const b1 = await time(without);
    const b2 = await time(without);
    const a2 = await time(withHook);
    diffs.push((a1 + a2 - b1 - b2) / 2);
  }
  await Promise.all([withHook.close(), without.close()]);
  return diffs;
}

console.log(machineLine());
console.log(`seed ${SEED} (bootstrap resampling)`);
const parts = await detectParts();
const r = await record(parts);
const cost = await requestCost(parts);
const models = new Map<string, number>();
for (const inf of r.inference) models.set(inf.model, (models.get(inf.model) ?? 0) + 1);
console.log(
  `\none /detect (one face, 640x480): ${r.http.length} HTTP observation, ${r.inference.length} model runs (${[...models].map(([k, v]) => `${k} x${v}`).join(', ')}), ` +
    `${r.events.length} event(s) (${r.events.join(', ')}), ${r.gcs.toFixed(2)} GCs`,
);
console.log(
  `request cost, same run (daemon with metrics off, 4 clients, n=${REQUESTS}): CPU ${fmt(cost.totalMs)} ms per request, of it ${fmt(cost.mainMs)} ms on the main thread; wall p50 ${fmt(cost.wallP50)} ms (1 client)`,
);

const on = new Metrics(true);
const off = new Metrics(false);
replay(r, on, ITERATIONS);
replay(r, off, ITERATIONS);
const instr = interleaved(
  ROUNDS,
  () => replay(r, on, ITERATIONS),
  () => replay(r, off, ITERATIONS),
);
const [iLo, iHi] = bootstrapMedianCi(instr, random);
const hook = await injectRounds(ROUNDS, Math.max(500, ITERATIONS / 10));
const [hLo, hHi] = bootstrapMedianCi(hook, random);
const hookBody = median(
  interleaved(
    ROUNDS,
    () => replay({ http: r.http, inference: [], events: [], gcs: 0 }, on, ITERATIONS),
    () => 0,
  ),
);
const dispatch = Math.max(0, median(hook) - hookBody);
const total = median(instr) + dispatch;
const totalHi = iHi + Math.max(0, hHi - hookBody);

console.log(`\n| what, per /detect request | CPU µs (median of ${ROUNDS} rounds) | 95% CI |`);
console.log('|---|---|---|');
console.log(`| instruments, metrics on minus off (${ITERATIONS} replays a round) | ${median(instr).toFixed(2)} | ${iLo.toFixed(2)}-${iHi.toFixed(2)} |`);
console.log(`| the onResponse hook through fastify inject, with minus without | ${median(hook).toFixed(2)} | ${hLo.toFixed(2)}-${hHi.toFixed(2)} |`);
console.log(`| of which the hook body (also in the first row) | ${hookBody.toFixed(2)} | |`);
console.log(`| total: instruments + hook dispatch | ${total.toFixed(2)} | up to ${totalHi.toFixed(2)} |`);
const pct = (us: number, ms: number) => ((100 * us) / (ms * 1000)).toFixed(3);
console.log(
  `\ncost: ${pct(total, cost.totalMs)}% of the request's CPU (upper CI ${pct(totalHi, cost.totalMs)}%); ` +
    `${pct(total, cost.mainMs)}% of its main-thread CPU (upper CI ${pct(totalHi, cost.mainMs)}%)`,
);
// Bounded by whichever resource saturates first: all cores, or the event loop alone.
console.log(`throughput with metrics on / off, from this: >= ${(1 - totalHi / 1000 / cost.mainMs).toFixed(4)} (target >= 0.98)`);
