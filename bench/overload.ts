/**
 * Overload: what 200 concurrent /detect clients and 24 concurrent 6300x6300 JPEG uploads do
 * to the real daemon (spawned on 127.0.0.1) under several limit settings (limits.*), the
 * defaults among them. Every daemon is started first, then the rounds alternate between them;
 * each round measures a lone client's latency (the baseline the p99 target is a ratio to)
 * just before 200 clients load the same daemon, so the ratio of each round compares figures
 * taken moments apart, and the median over rounds is reported beside the per-round values.
 * Also: how many requests were refused with 503 BUSY and the daemon's resident memory before
 * and at its peak (sampled from /proc every 100 ms). Clients honour Retry-After (with jitter)
 * as a well-behaved client does.
 *
 *   node --import tsx bench/overload.ts [--clients 200] [--seconds 20] [--rounds 3] [--single 20] [--big 24] [--only bounded,serial,open,c2q0,...]
 *
 * `--only` takes a comma-separated list of daemons (default bounded,serial,open): `bounded` (the
 * defaults), `serial` (concurrency 1, queue 1), `open` (limits wide open), or `c<N>q<M>` for
 * limits.inference_concurrency N and limits.inference_queue M. `--big 0` skips the big JPEGs.
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
import { numberArg } from './lib/cli-args.js';

const ROOT = packageRoot();
const CLIENTS = numberArg('--clients', 200);
const SECONDS = numberArg('--seconds', 20);
const BIG = numberArg('--big', 24);
const ROUNDS = numberArg('--rounds', 3);
const SINGLE = numberArg('--single', 20);
const onlyIdx = process.argv.indexOf('--only');
const ONLY = (onlyIdx > 0 ? process.argv[onlyIdx + 1]! : 'bounded,serial,open').split(',');

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

interface Daemon {
  label: string;
  child: ChildProcess;
  url: string;
  dataDir: string;
  dispatcher: Agent;
}

interface Result {
  label: string;
  single: number[];
  admitted: number[];
  /** Per round: admitted p99 over the single-client p99 measured just before it. */
  ratios: number[];
  outcomes: Outcome[];
  rssBefore: number;
  rssPeak: number;
  bigOut: Outcome[];
  bigMs: number;
  bigRssBefore: number;
  bigRssPeak: number;
}

/** One round on one daemon: the lone client (the baseline), then CLIENTS at once for SECONDS. */
async function round(d: Daemon, r: Result, payload: { body: Buffer; contentType: string }): Promise<void> {
  const pid = d.child.pid!;
  const single: number[] = [];
  for (let i = 0; i < SINGLE; i++) single.push((await post(d.dispatcher, d.url, payload)).ms);
  r.rssBefore = Math.min(r.rssBefore, rssMb(pid));
  const sampler = rssSampler(pid);
  const outcomes: Outcome[] = [];
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        const o = await post(d.dispatcher, d.url, payload);
        outcomes.push(o);
        if (o.status === 503) await new Promise((res) => setTimeout(res, Math.max(1, o.retryAfter) * 1000 * (0.5 + Math.random() / 2)));
      }
    }),
  );
  r.rssPeak = Math.max(r.rssPeak, sampler.stop());
  const admitted = outcomes.filter((o) => o.status === 200).map((o) => o.ms);
  r.single.push(...single);
  r.admitted.push(...admitted);
  r.outcomes.push(...outcomes);
  r.ratios.push(summarize(admitted).p99 / summarize(single).p99);
  // Let the refused clients' connections drain before the next daemon's round.
  await new Promise((res) => setTimeout(res, 2000));
}

async function bigPhase(d: Daemon, r: Result, big: Buffer): Promise<void> {
  const pid = d.child.pid!;
  r.bigRssBefore = rssMb(pid);
  const sampler = rssSampler(pid);
  const payload = form(big, 'big.jpg');
  const t0 = performance.now();
  r.bigOut = await Promise.all(Array.from({ length: BIG }, () => post(d.dispatcher, d.url, payload)));
  r.bigMs = performance.now() - t0;
  r.bigRssPeak = sampler.stop();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function otherStatuses(r: Result): string {
  return [
    ...[...r.outcomes, ...r.bigOut]
      .filter((o) => o.status !== 200 && o.status !== 503)
      .reduce((m, o) => m.set(o.status, (m.get(o.status) ?? 0) + 1), new Map<number, number>())
      .entries(),
  ]
    .map(([k, v]) => `${k === 0 ? 'client error/timeout' : k} x${v}`)
    .join(', ');
}

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(`clients ${CLIENTS}, ${SECONDS} s of load per round, ${ROUNDS} rounds, ${BIG} concurrent 6300x6300 JPEGs`);
  const small = readFileSync(resolve(ROOT, '..', 'shared', 'testdata', 'faces', 'multi', 'faceapi_bbt4.jpg'));
  // A 6300x6300 photo-like JPEG (noise over a gradient, so it does not compress to nothing).
  const noise = await sharp({ create: { width: 630, height: 630, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .png()
    .toBuffer();
  const big = await sharp(noise).resize(6300, 6300, { kernel: 'nearest' }).jpeg({ quality: 80 }).toBuffer();
  console.log(`big JPEG: ${(big.length / 1e6).toFixed(1)} MB`);

  const configs: { label: string; env: Record<string, string> }[] = [];
  for (const name of ONLY) {
    const custom = /^c(\d+)q(\d+)$/.exec(name);
    if (name === 'bounded') configs.push({ label: 'bounded (defaults)', env: {} });
    else if (name === 'serial') configs.push({ label: 'concurrency 1, queue 1', env: SERIAL_LIMITS });
    else if (name === 'open') configs.push({ label: 'limits opened wide', env: OPEN_LIMITS });
    else if (custom) configs.push({ label: `concurrency ${custom[1]}, queue ${custom[2]}`, env: { VIGIL_LIMITS_INFERENCE_CONCURRENCY: custom[1]!, VIGIL_LIMITS_INFERENCE_QUEUE: custom[2]! } });
    else throw new Error(`--only: unknown daemon ${name}`);
  }
  // Every daemon is started first and the rounds alternate between them (A, B, C, A, B, C...), so
  // a change in the box's load (it is shared) falls on all of them alike rather than on one.
  const daemons: Daemon[] = [];
  for (const c of configs) daemons.push({ label: c.label, ...(await startDaemon(c.env)), dispatcher: new Agent({ connections: CLIENTS + 10, pipelining: 0 }) });
  const results: Result[] = daemons.map((d) => ({
    label: d.label,
    single: [],
    admitted: [],
    ratios: [],
    outcomes: [],
    rssBefore: Infinity,
    rssPeak: 0,
    bigOut: [],
    bigMs: 0,
    bigRssBefore: 0,
    bigRssPeak: 0,
  }));
  const payload = form(small, 'face.jpg');
  try {
    for (const d of daemons) for (let i = 0; i < 5; i++) await post(d.dispatcher, d.url, payload);
    for (let k = 0; k < ROUNDS; k++) {
      for (const [i, d] of daemons.entries()) {
        await round(d, results[i]!, payload);
        console.error(`round ${k + 1}/${ROUNDS} ${d.label}: admitted p99 / single p99 ${results[i]!.ratios.at(-1)!.toFixed(2)}`);
      }
    }
    if (BIG > 0) for (const [i, d] of daemons.entries()) await bigPhase(d, results[i]!, big);
  } finally {
    for (const d of daemons) {
      await d.dispatcher.close();
      d.child.kill('SIGTERM');
      await new Promise((r) => (d.child.exitCode !== null ? r(null) : d.child.once('exit', r)));
      rmSync(d.dataDir, { recursive: true, force: true });
    }
  }

  console.log(`\n${ROUNDS} alternating rounds per daemon, each: ${SINGLE} sequential requests (the lone-client baseline), then ${CLIENTS} clients for ${SECONDS} s`);
  console.log(
    '\n| daemon | median of per-round p99 ratios | per-round ratios | single p50 / p99 (pooled) | admitted p50 / p95 / p99 (pooled) | 200 | 503 BUSY | other | RSS before MB | RSS peak MB | growth MB |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const single = summarize(r.single);
    const loaded = summarize(r.admitted);
    const busy = r.outcomes.filter((o) => o.status === 503).length;
    const other = r.outcomes.length - r.admitted.length - busy;
    console.log(
      `| ${r.label} | ${median(r.ratios).toFixed(2)} | ${r.ratios.map((x) => x.toFixed(2)).join(', ')} | ${fmt(single.p50)} / ${fmt(single.p99)} | ${fmt(loaded.p50)} / ${fmt(loaded.p95)} / ${fmt(loaded.p99)} | ${r.admitted.length} | ${busy} | ${other} | ${r.rssBefore.toFixed(0)} | ${r.rssPeak.toFixed(0)} | ${(r.rssPeak - r.rssBefore).toFixed(0)} |`,
    );
  }
  for (const r of results) {
    const o = otherStatuses(r);
    if (o) console.log(`${r.label}: other answers: ${o}`);
  }
  if (BIG === 0) return;
  console.log(`\n| daemon | ${BIG} x 6300x6300: 200 | 503 | other | wall s | RSS before MB | RSS peak MB | growth MB |`);
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const ok = r.bigOut.filter((o) => o.status === 200).length;
    const busy = r.bigOut.filter((o) => o.status === 503).length;
    console.log(
      `| ${r.label} | ${ok} | ${busy} | ${r.bigOut.length - ok - busy} | ${(r.bigMs / 1000).toFixed(1)} | ${r.bigRssBefore.toFixed(0)} | ${r.bigRssPeak.toFixed(0)} | ${(r.bigRssPeak - r.bigRssBefore).toFixed(0)} |`,
    );
  }
}

await main();
