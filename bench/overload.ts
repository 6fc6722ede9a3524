/**
 * Overload: what 200 concurrent /detect clients and 24 concurrent 6300x6300 JPEG uploads do
 * to the real daemon (spawned on 127.0.0.1), with the default limits (limits.*) and with the
 * limits opened wide (the daemon as it was before admission control), one after the other
 * in the same run. For each: a single client's latency (the baseline the p99 target is a
 * ratio to), the admitted requests' latency under load, how many were refused with 503 BUSY,
 * and the daemon's resident memory before and at its peak (sampled from /proc every 100 ms).
 * Clients honour Retry-After (with jitter) as a well-behaved client does.
 *
 *   node --import tsx bench/overload.ts [--clients 200] [--seconds 20] [--big 24] [--only bounded|serial|open]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { Agent, request } from 'undici';
import { packageRoot } from '../src/core/package-root.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const ROOT = packageRoot();
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const CLIENTS = arg('clients', 200);
const SECONDS = arg('seconds', 20);
const BIG = arg('big', 24);
const onlyIdx = process.argv.indexOf('--only');
const ONLY = onlyIdx > 0 ? process.argv[onlyIdx + 1] : undefined;

/** One request of a class at a time and one waiting: the lowest-latency setting, for comparison. */
const SERIAL_LIMITS = { VIGIL_LIMITS_INFERENCE_CONCURRENCY: '1', VIGIL_LIMITS_INFERENCE_QUEUE: '1' };

const OPEN_LIMITS = {
  VIGIL_LIMITS_INFERENCE_CONCURRENCY: '256',
  VIGIL_LIMITS_INFERENCE_QUEUE: '10000',
  VIGIL_LIMITS_QUEUE_WAIT_MS: '600000',
  VIGIL_LIMITS_MAX_PIXELS_IN_FLIGHT: '100000000000',
};

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startDaemon(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; dataDir: string }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-overload-'));
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli.ts')], {
    cwd: ROOT,
    env: { ...process.env, VIGIL_HOST: '127.0.0.1', VIGIL_PORT: String(port), VIGIL_DATA_DIR: dataDir, VIGIL_LOG_LEVEL: 'warn', VIGIL_SERVER_HW_PROFILE: 'x86-cpu', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 1200; i++) {
    try {
      const r = await fetch(`${url}/api/v1/admin/health`);
      const body = (await r.json()) as { modules: { face: boolean } };
      if (body.modules.face) return { child, url, dataDir };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('daemon did not start');
}

function form(file: Buffer, name: string): { body: Buffer; contentType: string } {
  const boundary = `----overload${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="${name}"\r\nContent-Type: image/jpeg\r\n\r\n`);
  return { body: Buffer.concat([head, file, Buffer.from(`\r\n--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface Outcome {
  status: number;
  ms: number;
  retryAfter: number;
}

async function post(dispatcher: Agent, url: string, payload: { body: Buffer; contentType: string }): Promise<Outcome> {
  const t0 = performance.now();
  try {
    const res = await request(`${url}/api/v1/detect`, { method: 'POST', body: payload.body, headers: { 'content-type': payload.contentType }, dispatcher });
    await res.body.arrayBuffer();
    return { status: res.statusCode, ms: performance.now() - t0, retryAfter: Number(res.headers['retry-after'] ?? 0) };
  } catch {
    return { status: 0, ms: performance.now() - t0, retryAfter: 0 };
  }
}

/** Samples the daemon's RSS every 100 ms until stopped; returns the peak. */
function rssSampler(pid: number): { stop: () => number } {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // process gone
    }
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

interface Result {
  label: string;
  single: ReturnType<typeof summarize>;
  loaded: ReturnType<typeof summarize>;
  ok: number;
  busy: number;
  other: number;
  rssBefore: number;
  rssPeak: number;
  bigOk: number;
  bigBusy: number;
  bigOther: number;
  bigMs: number;
  otherStatuses: string;
  bigRssBefore: number;
  bigRssPeak: number;
}

async function measure(label: string, env: Record<string, string>, small: Buffer, big: Buffer): Promise<Result> {
  const { child, url, dataDir } = await startDaemon(env);
  const pid = child.pid!;
  const dispatcher = new Agent({ connections: CLIENTS + 10, pipelining: 0 });
  try {
    const payload = form(small, 'face.jpg');
    for (let i = 0; i < 5; i++) await post(dispatcher, url, payload);
    const single: number[] = [];
    for (let i = 0; i < 40; i++) single.push((await post(dispatcher, url, payload)).ms);

    const rssBefore = rssMb(pid);
    const sampler = rssSampler(pid);
    const outcomes: Outcome[] = [];
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) {
          const o = await post(dispatcher, url, payload);
          outcomes.push(o);
          if (o.status === 503) await new Promise((r) => setTimeout(r, Math.max(1, o.retryAfter) * 1000 * (0.5 + Math.random() / 2)));
        }
      }),
    );
    const rssPeak = sampler.stop();
    await new Promise((r) => setTimeout(r, 2000));

    const bigRssBefore = rssMb(pid);
    const bigSampler = rssSampler(pid);
    const bigPayload = form(big, 'big.jpg');
    const t0 = performance.now();
    const bigOut = await Promise.all(Array.from({ length: BIG }, () => post(dispatcher, url, bigPayload)));
    const bigMs = performance.now() - t0;
    const bigRssPeak = bigSampler.stop();

    const admitted = outcomes.filter((o) => o.status === 200).map((o) => o.ms);
    return {
      label,
      single: summarize(single),
      loaded: summarize(admitted),
      ok: admitted.length,
      busy: outcomes.filter((o) => o.status === 503).length,
      other: outcomes.filter((o) => o.status !== 200 && o.status !== 503).length,
      rssBefore,
      rssPeak,
      bigOk: bigOut.filter((o) => o.status === 200).length,
      bigBusy: bigOut.filter((o) => o.status === 503).length,
      bigOther: bigOut.filter((o) => o.status !== 200 && o.status !== 503).length,
      bigMs,
      otherStatuses: [
        ...[...outcomes, ...bigOut]
          .filter((o) => o.status !== 200 && o.status !== 503)
          .reduce((m, o) => m.set(o.status, (m.get(o.status) ?? 0) + 1), new Map<number, number>())
          .entries(),
      ]
        .map(([k, v]) => `${k === 0 ? 'client error/timeout' : k} x${v}`)
        .join(', '),
      bigRssBefore,
      bigRssPeak,
    };
  } finally {
    await dispatcher.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(`clients ${CLIENTS}, ${SECONDS} s of load, ${BIG} concurrent 6300x6300 JPEGs`);
  const small = readFileSync(resolve(ROOT, '..', 'shared', 'testdata', 'faces', 'multi', 'faceapi_bbt4.jpg'));
  // A 6300x6300 photo-like JPEG (noise over a gradient, so it does not compress to nothing).
  const noise = await sharp({ create: { width: 630, height: 630, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png().toBuffer();
  const big = await sharp(noise).resize(6300, 6300, { kernel: 'nearest' }).jpeg({ quality: 80 }).toBuffer();
  console.log(`big JPEG: ${(big.length / 1e6).toFixed(1)} MB`);

  const results: Result[] = [];
  if (!ONLY || ONLY === 'bounded') results.push(await measure('bounded (defaults)', {}, small, big));
  if (!ONLY || ONLY === 'serial') results.push(await measure('concurrency 1, queue 1', SERIAL_LIMITS, small, big));
  if (!ONLY || ONLY === 'open') results.push(await measure('limits opened wide', OPEN_LIMITS, small, big));

  console.log('\n| daemon | single p50 | single p99 | loaded admitted p50 | p95 | p99 | p99 / single p99 | 200 | 503 BUSY | other | RSS before MB | RSS peak MB | growth MB |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.label} | ${fmt(r.single.p50)} | ${fmt(r.single.p99)} | ${fmt(r.loaded.p50)} | ${fmt(r.loaded.p95)} | ${fmt(r.loaded.p99)} | ${(r.loaded.p99 / r.single.p99).toFixed(2)} | ${r.ok} | ${r.busy} | ${r.other} | ${r.rssBefore.toFixed(0)} | ${r.rssPeak.toFixed(0)} | ${(r.rssPeak - r.rssBefore).toFixed(0)} |`,
    );
  }
  for (const r of results) if (r.otherStatuses) console.log(`${r.label}: other answers: ${r.otherStatuses}`);
  console.log(`\n| daemon | ${BIG} x 6300x6300: 200 | 503 | other | wall s | RSS before MB | RSS peak MB | growth MB |`);
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.label} | ${r.bigOk} | ${r.bigBusy} | ${r.bigOther} | ${(r.bigMs / 1000).toFixed(1)} | ${r.bigRssBefore.toFixed(0)} | ${r.bigRssPeak.toFixed(0)} | ${(r.bigRssPeak - r.bigRssBefore).toFixed(0)} |`,
    );
  }
}

await main();
