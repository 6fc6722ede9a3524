/**
 * What the Prometheus metrics cost (issue 19 targets).
 *  1. A scrape of /metrics with 16 cameras and 64 counting rules (two lines and two zones a
 *     camera; the cameras point at a closed RTSP port, so they exist, restart and carry
 *     their series without decoding anything): Metrics.scrape() in-process and GET /metrics
 *     over HTTP, against GET /api/v1/admin/health over the same connection in the same run.
 *  2. /detect of a one-face 640x480 JPEG, 4 concurrent clients, on two daemons that differ
 *     only in server.metrics (true / false), alternated in blocks so both see the same box:
 *     requests per second and p50, and the ratio on/off (the first daemon of each pair of
 *     blocks alternates).
 *
 *   node --import tsx bench/metrics.ts [--n 300] [--detect 160] [--block 20] [--detect-only] [--aa]
 *   (--aa: two identical daemons, metrics on both, to show the noise floor of the comparison)
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
const DETECT = arg('--detect', 160);
const BLOCK = arg('--block', 20);
const AA = process.argv.includes('--aa');
const SKIP_SCRAPE = process.argv.includes('--detect-only');
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
        await app.inject({ method: 'POST', url: `/api/v1/video/cameras/${cam}/lines`, payload: { rule_id: `line-${r}`, points: [[0.1, 0.3 + r * 0.3], [0.9, 0.3 + r * 0.3]] } });
        await app.inject({ method: 'POST', url: `/api/v1/video/cameras/${cam}/zones`, payload: { rule_id: `zone-${r}`, points: [[0.1 + r * 0.4, 0.1], [0.4 + r * 0.4, 0.1], [0.4 + r * 0.4, 0.9], [0.1 + r * 0.4, 0.9]] } });
      }
    }
    const text = await app.vigil.metrics.scrape();
    const rules = text.split('\n').filter((l) => l.startsWith('vigil_zone_occupancy{')).length + text.split('\n').filter((l) => l.startsWith('vigil_line_crossings_total{') && l.includes('direction="in"')).length;
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

async function detectBench(): Promise<void> {
  const faces = join(packageRoot(), '..', 'shared', 'testdata', 'faces', 'identities', 'fr_barack_obama');
  const jpeg = await sharp(join(faces, 'obama.jpg')).resize(640, 480, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer();
  const parts: Part[] = [{ name: 'image', file: jpeg, contentType: 'image/jpeg' }];
  // --aa: both daemons with metrics on, to see how far apart two identical daemons land on this box.
  const builds = AA
    ? [{ name: 'metrics on (A)', d: await startDaemon(true) }, { name: 'metrics on (A\')', d: await startDaemon(true) }]
    : [{ name: 'metrics on', d: await startDaemon(true) }, { name: 'metrics off', d: await startDaemon(false) }];
  try {
    const lat = builds.map(() => [] as number[]);
    const wall = builds.map(() => 0);
    for (const b of builds) for (let i = 0; i < 8; i++) await post(b.d.url, parts);
    for (let done = 0; done < DETECT; done += BLOCK) {
      // Which daemon goes first alternates too: the one after a switch finds colder caches.
      const order = (done / BLOCK) % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) {
        const b = builds[k]!;
        let left = Math.min(BLOCK, DETECT - done);
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (left-- > 0) lat[k]!.push(await post(b.d.url, parts));
          }),
        );
        wall[k]! += performance.now() - t0;
      }
    }
    const rps = lat.map((l, k) => (l.length * 1000) / wall[k]!);
    const s = lat.map(summarize);
    console.log(`\n/detect one face 640x480, 4 concurrent clients, n=${DETECT} per daemon, alternated in blocks of ${BLOCK}\n`);
    console.log('| daemon | req/s | p50 ms | p95 ms |');
    console.log('|---|---|---|---|');
    for (const [k, b] of builds.entries()) console.log(`| ${b.name} | ${rps[k]!.toFixed(1)} | ${fmt(s[k]!.p50)} | ${fmt(s[k]!.p95)} |`);
    console.log(`\nthroughput ${AA ? 'A/A\'' : 'on/off'}: ${(rps[0]! / rps[1]!).toFixed(3)}${AA ? '' : ' (target >= 0.98)'}`);
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
