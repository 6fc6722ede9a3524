/**
 * Soak: the real daemon (src/cli.ts in its own process, as systemd runs it) for a long
 * stretch with 4 looped file cameras carrying counting lines and a mixed API load, while
 * its RSS and open file descriptors are sampled from /proc/<pid>.
 *
 *   node --import tsx bench/soak.ts [--minutes 60] [--warmup-minutes 5] [--clients 2] [--sample-seconds 10]
 *
 * Load: `--clients` closed-loop clients, each cycling through detect, verify,
 * enroll -> identify -> delete (so the watchlist stays the same size and any growth is
 * a leak, not data), document mrz, events recent, and a health probe. Reports, after the
 * warm-up: RSS and fd growth (first sample after warm-up to the last, and the least-squares
 * slope per hour), p50/p95 per request kind over the whole run, and the ratio of each
 * kind's p50 in the last quarter to the first quarter (the same-run baseline: 1.0 means
 * no slowdown over time). Non-2xx answers are counted per kind. JSON lands in bench/out/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../src/core/package-root.js';
import { fmt, machineLine, percentile } from './lib/stats.js';

const { values: opts } = parseArgs({
  options: {
    minutes: { type: 'string' },
    'warmup-minutes': { type: 'string' },
    clients: { type: 'string' },
    'sample-seconds': { type: 'string' },
  },
});
const MINUTES = Number(opts.minutes ?? 60);
const WARMUP_MIN = Number(opts['warmup-minutes'] ?? Math.min(5, MINUTES / 6));
const CLIENTS = Number(opts.clients ?? 2);
const SAMPLE_S = Number(opts['sample-seconds'] ?? 10);
const ROOT = packageRoot();
const TESTDATA = join(ROOT, '..', 'shared', 'testdata');
const CLIPS = [
  join(TESTDATA, 'video', 'PETS09-S2L1', 'vtest.avi'),
  join(TESTDATA, 'video', 'TUD-Campus', 'TUD-Campus.mp4'),
  join(TESTDATA, 'video', 'TUD-Stadtmitte', 'TUD-Stadtmitte.mp4'),
  join(TESTDATA, 'video', 'KITTI-17', 'KITTI-17.mp4'),
];

function faces(): Buffer[] {
  const dir = join(TESTDATA, 'faces', 'identities');
  const out: Buffer[] = [];
  for (const person of readdirSync(dir).sort()) {
    const f = readdirSync(join(dir, person)).sort()[0];
    if (f) out.push(readFileSync(join(dir, person, f)));
    if (out.length >= 6) break;
  }
  return out;
}
const FACES = faces();
const MRZ = readFileSync(join(TESTDATA, 'documents', 'mrz', 'passporteye_100_id-mac.jpg'));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** RSS (MB) and open descriptors of a process, from /proc. */
function sampleProc(pid: number): { rssMb: number; fds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return { rssMb: rssKb / 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
}

function slopePerHour(points: { t: number; v: number }[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const mv = points.reduce((a, p) => a + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 3_600_000;
}

function form(parts: Record<string, Buffer | string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) {
    if (typeof v === 'string') f.append(k, v);
    else f.append(k, new Blob([new Uint8Array(v)], { type: 'image/jpeg' }), `${k}.jpg`);
  }
  return f;
}

interface Sample {
  kind: string;
  at: number;
  ms: number;
  status: number;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-soak-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let out = '';
  const daemon: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      VIGIL_HOST: '127.0.0.1',
      VIGIL_PORT: String(port),
      VIGIL_DATA_DIR: dataDir,
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_SERVER_HW_PROFILE: 'x86-cpu',
      VIGIL_VIDEO_ENABLED: 'true',
      VIGIL_VIDEO_MAX_FPS: '10',
      VIGIL_VIDEO_FILE_ROOTS: join(TESTDATA, 'video'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  daemon.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  daemon.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const stop = async () => {
    if (daemon.exitCode === null) daemon.kill('SIGTERM');
    await new Promise((r) => (daemon.exitCode !== null ? r(null) : daemon.once('exit', r)));
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));

  for (const deadline = Date.now() + 120_000; ;) {
    if (daemon.exitCode !== null) throw new Error(`daemon exited early:\n${out}`);
    try {
      if ((await fetch(`${base}/api/v1/admin/health`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`daemon not ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 500));
  }

  const json = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  for (const [i, clip] of CLIPS.entries()) {
    const id = `soak${i}`;
    const r = await json('/api/v1/video/cameras', { camera_id: id, source: clip, loop: true });
    if (r.status >= 300) throw new Error(`camera ${clip}: ${r.status} ${await r.text()}`);
    await json(`/api/v1/video/cameras/${id}/lines`, {
      rule_id: 'mid',
      points: [
        [0, 0.5],
        [1, 0.5],
      ],
    });
  }

  const samples: Sample[] = [];
  const mem: { t: number; rssMb: number; fds: number }[] = [];
  const t0 = Date.now();
  const end = t0 + MINUTES * 60_000;
  const warmEnd = t0 + WARMUP_MIN * 60_000;
  const pid = daemon.pid!;
  const sampler = setInterval(() => {
    try {
      mem.push({ t: Date.now(), ...sampleProc(pid) });
    } catch {
      /* exiting */
    }
  }, SAMPLE_S * 1000);
  mem.push({ t: Date.now(), ...sampleProc(pid) });

  /** The first non-2xx answer of each kind, so a count of failures comes with its reason. */
  const firstError = new Map<string, string>();
  const timed = async (kind: string, fn: () => Promise<Response>) => {
    const s = performance.now();
    let status = 0;
    try {
      const res = await fn();
      status = res.status;
      const text = await res.text();
      if ((status < 200 || status >= 300) && !firstError.has(kind)) firstError.set(kind, `${status} ${text.slice(0, 200)}`);
    } catch (err) {
      status = -1;
      if (!firstError.has(kind)) firstError.set(kind, `request failed: ${(err as Error).message}`);
    }
    samples.push({ kind, at: Date.now(), ms: performance.now() - s, status });
    return status;
  };

  const client = async (c: number) => {
    for (let n = 0; Date.now() < end; n++) {
      const a = FACES[n % FACES.length]!;
      const b = FACES[(n + 1) % FACES.length]!;
      await timed('detect', () => fetch(`${base}/api/v1/detect`, { method: 'POST', body: form({ image: a }) }));
      await timed('verify', () => fetch(`${base}/api/v1/verify`, { method: 'POST', body: form({ image1: a, image2: b }) }));
      const id = `soak-${c}-${n}`;
      await timed('enroll', () => fetch(`${base}/api/v1/watchlist/enroll`, { method: 'POST', body: form({ image: a, label: id, identity_id: id, watchlist_name: 'soak' }) }));
      await timed('identify', () => fetch(`${base}/api/v1/identify`, { method: 'POST', body: form({ image: a, watchlist_name: 'soak' }) }));
      await timed('delete', () => fetch(`${base}/api/v1/watchlist/${id}`, { method: 'DELETE' }));
      await timed('mrz', () => fetch(`${base}/api/v1/documents/mrz`, { method: 'POST', body: form({ image: MRZ }) }));
      await timed('events', () => fetch(`${base}/api/v1/events/recent?limit=100`));
      await timed('health', () => fetch(`${base}/api/v1/admin/health`));
    }
  };
  const progress = setInterval(() => {
    const m = mem.at(-1);
    console.error(`  ${((Date.now() - t0) / 60_000).toFixed(1)} min: ${samples.length} requests, RSS ${m?.rssMb.toFixed(0)} MB, fds ${m?.fds}`);
  }, 60_000);
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  clearInterval(sampler);
  clearInterval(progress);
  mem.push({ t: Date.now(), ...sampleProc(pid) });
  const cams = (await (await fetch(`${base}/api/v1/video/cameras`)).json()) as { camera_id: string; status: string; processed_fps: number; frame_count: number }[];
  const health = await (await fetch(`${base}/api/v1/admin/health`)).json();
  await stop();

  // ---- report ----
  const after = mem.filter((m) => m.t >= warmEnd);
  const first = after[0]!;
  const last = after.at(-1)!;
  const report = {
    machine: machineLine(),
    minutes: MINUTES,
    warmup_minutes: WARMUP_MIN,
    clients: CLIENTS,
    cameras: cams.map((c) => ({ id: c.camera_id, status: c.status, processed_fps: c.processed_fps, frames: c.frame_count })),
    rss_mb: {
      start: mem[0]!.rssMb,
      after_warmup: first.rssMb,
      end: last.rssMb,
      max: Math.max(...after.map((m) => m.rssMb)),
      growth_pct: ((last.rssMb - first.rssMb) / first.rssMb) * 100,
      slope_mb_per_hour: slopePerHour(after.map((m) => ({ t: m.t, v: m.rssMb }))),
    },
    fds: { start: mem[0]!.fds, after_warmup: first.fds, end: last.fds, max: Math.max(...after.map((m) => m.fds)), slope_per_hour: slopePerHour(after.map((m) => ({ t: m.t, v: m.fds }))) },
    kinds: {} as Record<string, unknown>,
    healthy_at_end: (health as { healthy: boolean }).healthy,
    first_errors: Object.fromEntries(firstError),
  };
  console.log(`\n# soak: ${MINUTES} min (warm-up ${WARMUP_MIN} min), ${CLIPS.length} looped cameras at max_fps 10 with a counting line each, ${CLIENTS} API clients`);
  console.log(`# ${report.machine}`);
  console.log(
    `RSS MB: start ${fmt(report.rss_mb.start)}, after warm-up ${fmt(first.rssMb)}, end ${fmt(last.rssMb)}, max ${fmt(report.rss_mb.max)}; growth after warm-up ${report.rss_mb.growth_pct.toFixed(1)}% (slope ${report.rss_mb.slope_mb_per_hour.toFixed(1)} MB/h)`,
  );
  console.log(`open fds: start ${report.fds.start}, after warm-up ${first.fds}, end ${last.fds}, max ${report.fds.max} (slope ${report.fds.slope_per_hour.toFixed(1)}/h)`);
  console.log('\n| kind | n | non-2xx | p50 ms | p95 ms | p50 last quarter / first quarter |');
  console.log('|---|---|---|---|---|---|');
  const measured = samples.filter((s) => s.at >= warmEnd);
  const span = end - warmEnd;
  for (const kind of ['detect', 'verify', 'enroll', 'identify', 'delete', 'mrz', 'events', 'health']) {
    const k = measured.filter((s) => s.kind === kind);
    const ms = k.map((s) => s.ms);
    const q1 = k.filter((s) => s.at < warmEnd + span / 4).map((s) => s.ms);
    const q4 = k.filter((s) => s.at >= end - span / 4).map((s) => s.ms);
    const bad = k.filter((s) => s.status < 200 || s.status >= 300).length;
    const ratio = percentile(q4, 50) / percentile(q1, 50);
    report.kinds[kind] = { n: k.length, non_2xx: bad, p50: percentile(ms, 50), p95: percentile(ms, 95), late_over_early_p50: ratio };
    console.log(`| ${kind} | ${k.length} | ${bad} | ${fmt(percentile(ms, 50))} | ${fmt(percentile(ms, 95))} | ${ratio.toFixed(2)} |`);
  }
  for (const [kind, e] of firstError) console.log(`first non-2xx of ${kind}: ${e}`);
  if (!report.healthy_at_end) console.log(`health at the end: ${JSON.stringify(health)}`);
  console.log(`\ncameras at the end: ${cams.map((c) => `${c.camera_id} ${c.status} ${c.processed_fps} fps`).join('; ')}; healthy: ${report.healthy_at_end}`);
  const dir = join(ROOT, 'bench', 'out');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ report, memory: mem }, null, 2));
  console.log(`(raw samples: ${file})`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
