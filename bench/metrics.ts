/**
 * What the Prometheus metrics cost (issue 19 targets).
 *  1. A scrape of /metrics with 16 cameras and 64 counting rules (two lines and two zones a
 *     camera; the cameras point at a closed RTSP port, so they exist, restart and carry
 *     their series without decoding anything): Metrics.scrape() in-process and GET /metrics
 *     over HTTP, against GET /api/v1/admin/health over the same connection in the same run.
 *  2. /detect of a one-face 640x480 JPEG, 4 concurrent clients, on four daemons: two with
 *     metrics on and two off (server.metrics), in many short ABBA rounds; the medians of the
 *     per-round ratios on/off, on/on and off/off (the noise floor) of throughput and of CPU per
 *     request, with bootstrap 95% intervals, see detectBench. bench/metrics-cost.ts measures the
 *     cost per request directly, finer than this end-to-end run can on a shared box.
 *
 *   node --import tsx bench/metrics.ts [--n 300] [--rounds 48] [--block 8] [--detect-only | --scrape-only] [--off-first] [--seed S]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { packageRoot } from '../src/core/package-root.js';
import type { Daemon } from '../test/helpers/daemon.js';
import { multipart, type Part } from '../test/helpers/multipart.js';
import { procCpu } from './lib/proc-cpu.js';
import { freshSeed, seededRandom } from './lib/seeded.js';
import { bootstrapMedianCi, fmt, machineLine, median, summarize, timeIt } from './lib/stats.js';
import { numberArg } from './lib/cli-args.js';
import { spawnFaceOnlyDaemon } from './lib/face-only-daemon.js';

const N = numberArg('--n', 300);
const ROUNDS = numberArg('--rounds', 48);
const BLOCK = numberArg('--block', 8);
const SKIP_SCRAPE = process.argv.includes('--detect-only');
const SKIP_DETECT = process.argv.includes('--scrape-only');
const OFF_FIRST = process.argv.includes('--off-first');
const SEED = numberArg('--seed', freshSeed());
const random = seededRandom(SEED);
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 8 });
const OFF = { document: { enabled: false }, identity: { enabled: false }, liveness: { enabled: false } };

async function get(url: string, ok: readonly number[] = [200]): Promise<void> {
  const res = await request(url, { dispatcher: agent });
  await res.body.text();
  if (!ok.includes(res.statusCode)) throw new Error(`${url}: ${res.statusCode}`);
}

async function scrapeBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-metrics-'));
  const config = loadConfig({
    env: {},
    overrides: { ...OFF, person: { enabled: false }, video: { enabled: true, max_cameras: 16 }, server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } },
  });
  // Logs silent: 16 refused cameras restarting would fill the output.
  const app = await buildApp(config);
  try {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    for (let c = 0; c < 16; c++) {
      const cam = `cam-${c}`;
      const add = await app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id: cam, source: `rtsp://127.0.0.1:9/${cam}` } });
      if (add.statusCode !== 201) throw new Error(add.body);
      for (let r = 0; r < 2; r++) {
        await app.inject({
          method: 'POST',
          url: `/api/v1/video/cameras/${cam}/lines`,
          payload: {
            rule_id: `line-${r}`,
            points: [
              [0.1, 0.3 + r * 0.3],
              [0.9, 0.3 + r * 0.3],
            ],
          },
        });
        await app.inject({
          method: 'POST',
          url: `/api/v1/video/cameras/${cam}/zones`,
          payload: {
            rule_id: `zone-${r}`,
            points: [
              [0.1 + r * 0.4, 0.1],
              [0.4 + r * 0.4, 0.1],
              [0.4 + r * 0.4, 0.9],
              [0.1 + r * 0.4, 0.9],
            ],
          },
        });
      }
    }
    const text = await app.vigil.metrics.scrape();
    const rules =
      text.split('\n').filter((l) => l.startsWith('vigil_zone_occupancy{')).length + text.split('\n').filter((l) => l.startsWith('vigil_line_crossings_total{') && l.includes('direction="in"')).length;
    const series = text.split('\n').filter((l) => l && !l.startsWith('#')).length;
    const direct = summarize(await timeIt(N, () => app.vigil.metrics.scrape(), 20));
    // CPU of the scrape itself (this process's main thread, where it runs): on a loaded box the
    // wall time above also counts the slices other processes ran in.
    const cpu0 = procCpu(process.pid).mainMs;
    for (let i = 0; i < N; i++) await app.vigil.metrics.scrape();
    const scrapeCpuMs = (procCpu(process.pid).mainMs - cpu0) / N;
    const http = summarize(await timeIt(N, () => get(`${url}/metrics`), 20));
    // 503 with the same body: the refused cameras make the box unhealthy, which is the work to time.
    const health = summarize(await timeIt(N, () => get(`${url}/api/v1/admin/health`, [200, 503]), 20));
    console.log(`\n16 cameras, ${rules} rules, ${series} series, ${Math.round(text.length / 1024)} KiB a scrape; n=${N}\n`);
    console.log('| what | p50 ms | p95 ms | p50 / GET health |');
    console.log('|---|---|---|---|');
    console.log(`| Metrics.scrape() in-process | ${fmt(direct.p50)} | ${fmt(direct.p95)} | |`);
    console.log(`| Metrics.scrape() in-process, main-thread CPU per scrape (mean) | ${fmt(scrapeCpuMs)} | | |`);
    console.log(`| GET /metrics over HTTP | ${fmt(http.p50)} | ${fmt(http.p95)} | ${(http.p50 / health.p50).toFixed(2)} |`);
    console.log(`| GET /api/v1/admin/health (baseline) | ${fmt(health.p50)} | ${fmt(health.p95)} | 1.00 |`);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function post(base: string, parts: Part[]): Promise<number> {
  const { payload, headers } = multipart(parts);
  const t0 = performance.now();
  const res = await request(`${base}/api/v1/detect`, { method: 'POST', body: payload, headers, dispatcher: agent });
  const body = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`/detect: ${res.statusCode} ${body}`);
  return performance.now() - t0;
}

/**
 * Four daemons, metrics on (A, A') and off (B, B'), in ROUNDS short rounds; each round gives
 * every daemon one block of BLOCK requests from 4 clients. The order inside a round cycles
 * through A B B' A', B A A' B', A' B' B A, B' A' A B: each round is ABBA for on against off (a
 * load that drifts through the round weighs on both sides alike), and over four rounds every
 * daemon takes every place. Per round: throughput on/off = (A + A') / (B + B'), and the CPU the
 * daemons spent per request (kernel run time of all their threads) on/off. A/A' and B/B' are
 * the noise floor of the same run. Reported: the median over rounds with a bootstrap 95% CI.
 */
async function detectBench(): Promise<void> {
  const faces = join(packageRoot(), '..', 'shared', 'testdata', 'faces', 'identities', 'fr_barack_obama');
  const jpeg = await sharp(join(faces, 'obama.jpg')).resize(640, 480, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer();
  const parts: Part[] = [{ name: 'image', file: jpeg, contentType: 'image/jpeg' }];
  const roles = [
    { name: 'metrics on (A)', metrics: true },
    { name: 'metrics off (B)', metrics: false },
    { name: "metrics on (A')", metrics: true },
    { name: "metrics off (B')", metrics: false },
  ];
  // The first daemon started came out slowest in some runs, whatever its setting: --off-first
  // starts the two metrics-off daemons first, to tell that from the metrics cost.
  const startOrder = OFF_FIRST ? [1, 3, 0, 2] : [0, 1, 2, 3];
  const started = new Map<number, Daemon & { dataDir: string }>();
  for (const i of startOrder) started.set(i, await spawnFaceOnlyDaemon(roles[i]!.metrics));
  const builds = roles.map((r, i) => ({ name: r.name, d: started.get(i)! }));
  console.log(`daemons started in the order ${startOrder.map((i) => roles[i]!.name).join(', ')}; seed ${SEED} (bootstrap resampling)`);
  const orders = [
    [0, 1, 3, 2],
    [1, 0, 2, 3],
    [2, 3, 1, 0],
    [3, 2, 0, 1],
  ];
  try {
    const lat = builds.map(() => [] as number[]);
    const wall = builds.map(() => 0);
    const ratios = { onOff: [] as number[], aa: [] as number[], bb: [] as number[], cpuOnOff: [] as number[], cpuAa: [] as number[], cpuBb: [] as number[] };
    for (const b of builds) for (let i = 0; i < 8; i++) await post(b.d.url, parts);
    for (let r = 0; r < ROUNDS; r++) {
      const rps = builds.map(() => 0);
      const cpu = builds.map(() => 0);
      for (const k of orders[r % orders.length]!) {
        const b = builds[k]!;
        let left = BLOCK;
        const c0 = procCpu(b.d.proc.pid!).totalMs;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (left-- > 0) lat[k]!.push(await post(b.d.url, parts));
          }),
        );
        const ms = performance.now() - t0;
        cpu[k] = (procCpu(b.d.proc.pid!).totalMs - c0) / BLOCK;
        wall[k]! += ms;
        rps[k] = (BLOCK * 1000) / ms;
      }
      ratios.onOff.push((rps[0]! + rps[2]!) / (rps[1]! + rps[3]!));
      ratios.aa.push(rps[0]! / rps[2]!);
      ratios.bb.push(rps[1]! / rps[3]!);
      // CPU per request off/on, so that like throughput a value below 1 means metrics cost.
      ratios.cpuOnOff.push((cpu[1]! + cpu[3]!) / (cpu[0]! + cpu[2]!));
      ratios.cpuAa.push(cpu[2]! / cpu[0]!);
      ratios.cpuBb.push(cpu[3]! / cpu[1]!);
    }
    const pooled = lat.map((l, k) => (l.length * 1000) / wall[k]!);
    const s = lat.map(summarize);
    const show = (xs: number[]) => {
      const [lo, hi] = bootstrapMedianCi(xs, random);
      return `${median(xs).toFixed(3)} (95% CI ${lo.toFixed(3)}-${hi.toFixed(3)})`;
    };
    console.log(`\n/detect one face 640x480, 4 concurrent clients, ${ROUNDS} rounds of ${BLOCK} requests per daemon (n=${ROUNDS * BLOCK} each), ABBA orders\n`);
    console.log('| daemon | req/s (pooled) | p50 ms | p95 ms |');
    console.log('|---|---|---|---|');
    for (const [k, b] of builds.entries()) console.log(`| ${b.name} | ${pooled[k]!.toFixed(1)} | ${fmt(s[k]!.p50)} | ${fmt(s[k]!.p95)} |`);
    console.log("\n| median of per-round ratios | on/off (target >= 0.98) | on/on (A/A', noise) | off/off (B/B', noise) |");
    console.log('|---|---|---|---|');
    console.log(`| throughput | ${show(ratios.onOff)} | ${show(ratios.aa)} | ${show(ratios.bb)} |`);
    console.log(`| 1 / CPU per request | ${show(ratios.cpuOnOff)} | ${show(ratios.cpuAa)} | ${show(ratios.cpuBb)} |`);
  } finally {
    for (const b of builds) b.d.proc.kill('SIGTERM');
    await Promise.all(builds.map((b) => b.d.exited));
    for (const b of builds) rmSync(b.d.dataDir, { recursive: true, force: true });
  }
}

console.log(machineLine());
if (!SKIP_SCRAPE) await scrapeBench();
if (!SKIP_DETECT) await detectBench();
await agent.close();
