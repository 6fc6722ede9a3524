/**
 * What the Prometheus metrics cost (issue 19 targets).
 *  1. A scrape of /metrics with 16 cameras and 64 counting rules (two lines and two zones a
 *     camera; the cameras point at a closed RTSP port, so they exist, restart and carry
 *     their series without decoding anything): Metrics.scrape() in-process and GET /metrics
 *     over HTTP, against GET /api/v1/admin/health over the same connection in the same run.
 *  2. /detect of a one-face 640x480 JPEG, 4 concurrent clients, on four daemons: two with
 *     metrics on and two off (server.metrics), in alternating rounds; the medians of the
 *     per-round throughput ratios on/off, on/on and off/off (the noise floor), see detectBench.
 *
 *   node --import tsx bench/metrics.ts [--n 300] [--rounds 30] [--block 12] [--detect-only] [--off-first]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { packageRoot } from '../src/core/package-root.js';
import { spawnDaemon, type Daemon } from '../test/helpers/daemon.js';
import { multipart, type Part } from '../test/helpers/multipart.js';
import { fmt, machineLine, summarize, timeIt } from './lib/stats.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--n', 300);
const ROUNDS = arg('--rounds', 30);
const BLOCK = arg('--block', 12);
const SKIP_SCRAPE = process.argv.includes('--detect-only');
const OFF_FIRST = process.argv.includes('--off-first');
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 8 });
const OFF = { document: { enabled: false }, identity: { enabled: false }, liveness: { enabled: false } };

async function get(url: string): Promise<void> {
  const res = await request(url, { dispatcher: agent });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
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
    const http = summarize(await timeIt(N, () => get(`${url}/metrics`), 20));
    const health = summarize(await timeIt(N, () => get(`${url}/api/v1/admin/health`), 20));
    console.log(`\n16 cameras, ${rules} rules, ${series} series, ${Math.round(text.length / 1024)} KiB a scrape; n=${N}\n`);
    console.log('| what | p50 ms | p95 ms | p50 / GET health |');
    console.log('|---|---|---|---|');
    console.log(`| Metrics.scrape() in-process | ${fmt(direct.p50)} | ${fmt(direct.p95)} | |`);
    console.log(`| GET /metrics over HTTP | ${fmt(http.p50)} | ${fmt(http.p95)} | ${(http.p50 / health.p50).toFixed(2)} |`);
    console.log(`| GET /api/v1/admin/health (baseline) | ${fmt(health.p50)} | ${fmt(health.p95)} | 1.00 |`);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function startDaemon(metrics: boolean): Promise<Daemon & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-detect-'));
  const d = await spawnDaemon(
    {
      VIGIL_DATA_DIR: dataDir,
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_SERVER_METRICS: String(metrics),
      VIGIL_DOCUMENT_ENABLED: 'false',
      VIGIL_IDENTITY_ENABLED: 'false',
      VIGIL_LIVENESS_ENABLED: 'false',
      VIGIL_PERSON_ENABLED: 'false',
      // Four clients at once: they queue rather than meet admission control's 503.
      VIGIL_LIMITS_INFERENCE_QUEUE: '16',
    },
    { timeoutMs: 180_000 },
  );
  return Object.assign(d, { dataDir });
}

async function post(base: string, parts: Part[]): Promise<number> {
  const { payload, headers } = multipart(parts);
  const t0 = performance.now();
  const res = await request(`${base}/api/v1/detect`, { method: 'POST', body: payload, headers, dispatcher: agent });
  const body = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`/detect: ${res.statusCode} ${body}`);
  return performance.now() - t0;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Four daemons, metrics on (A, A') and off (B, B'), measured in ROUNDS rounds; each round
 * gives every daemon one block of BLOCK requests from 4 clients, in a rotating order (the one
 * after a switch finds colder caches). Each round yields the throughput ratio on/off as
 * (A + A') / (B + B') from blocks seconds apart, so a change in the shared box's load between
 * rounds cancels out, and two daemons a side dilute what makes one process faster than an
 * identical other (measured: up to 30% here); the medians over rounds are the figures. A/A'
 * and B/B' are the noise floor of the same run: identical daemons, so their spread says how
 * far on/off can stray from the truth by chance.
 */
async function detectBench(): Promise<void> {
  const faces = join(packageRoot(), '..', 'shared', 'testdata', 'faces', 'identities', 'fr_barack_obama');
  const jpeg = await sharp(join(faces, 'obama.jpg')).resize(640, 480, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer();
  const parts: Part[] = [{ name: 'image', file: jpeg, contentType: 'image/jpeg' }];
  // The first daemon started came out slowest in every run so far, whatever its setting:
  // --off-first starts the two metrics-off daemons first, to tell that from the metrics cost.
  const roles = [
    { name: 'metrics on (A)', metrics: true },
    { name: 'metrics off (B)', metrics: false },
    { name: "metrics on (A')", metrics: true },
    { name: "metrics off (B')", metrics: false },
  ];
  const startOrder = OFF_FIRST ? [1, 3, 0, 2] : [0, 1, 2, 3];
  const started = new Map<number, Daemon & { dataDir: string }>();
  for (const i of startOrder) started.set(i, await startDaemon(roles[i]!.metrics));
  const builds = roles.map((r, i) => ({ name: r.name, d: started.get(i)! }));
  console.log(`daemons started in the order ${startOrder.map((i) => roles[i]!.name).join(', ')}`);
  try {
    const lat = builds.map(() => [] as number[]);
    const wall = builds.map(() => 0);
    const onOff: number[] = [];
    const aa: number[] = [];
    const bb: number[] = [];
    for (const b of builds) for (let i = 0; i < 8; i++) await post(b.d.url, parts);
    for (let r = 0; r < ROUNDS; r++) {
      const rps = builds.map(() => 0);
      for (let j = 0; j < builds.length; j++) {
        const k = (r + j) % builds.length;
        const b = builds[k]!;
        let left = BLOCK;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (left-- > 0) lat[k]!.push(await post(b.d.url, parts));
          }),
        );
        const ms = performance.now() - t0;
        wall[k]! += ms;
        rps[k] = (BLOCK * 1000) / ms;
      }
      onOff.push((rps[0]! + rps[2]!) / (rps[1]! + rps[3]!));
      aa.push(rps[0]! / rps[2]!);
      bb.push(rps[1]! / rps[3]!);
    }
    const pooled = lat.map((l, k) => (l.length * 1000) / wall[k]!);
    const s = lat.map(summarize);
    const spread = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return `${sorted[Math.floor(sorted.length / 4)]!.toFixed(3)}-${sorted[Math.floor((3 * sorted.length) / 4)]!.toFixed(3)}`;
    };
    console.log(`\n/detect one face 640x480, 4 concurrent clients, ${ROUNDS} rounds of ${BLOCK} requests per daemon (n=${ROUNDS * BLOCK} each), rotating order\n`);
    console.log('| daemon | req/s (pooled) | p50 ms | p95 ms |');
    console.log('|---|---|---|---|');
    for (const [k, b] of builds.entries()) console.log(`| ${b.name} | ${pooled[k]!.toFixed(1)} | ${fmt(s[k]!.p50)} | ${fmt(s[k]!.p95)} |`);
    console.log(`\nthroughput on/off ((A+A')/(B+B')): median of per-round ratios ${median(onOff).toFixed(3)} (interquartile ${spread(onOff)}; target >= 0.98)`);
    console.log(`noise floor: on/on (A/A') median ${median(aa).toFixed(3)} (interquartile ${spread(aa)}); off/off (B/B') median ${median(bb).toFixed(3)} (interquartile ${spread(bb)})`);
  } finally {
    for (const b of builds) b.d.proc.kill('SIGTERM');
    await Promise.all(builds.map((b) => b.d.exited));
    for (const b of builds) rmSync(b.d.dataDir, { recursive: true, force: true });
  }
}

console.log(machineLine());
if (!SKIP_SCRAPE) await scrapeBench();
await detectBench();
await agent.close();
