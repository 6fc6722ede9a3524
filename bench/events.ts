// Events benchmark: emit-to-delivered webhook throughput and latency (4 workers, signed, to a
// local HTTPS receiver in another process) against a bare undici POST loop to the same receiver,
// and the MQTT mirror's publish rate against a raw mqtt client loop to the same mosquitto.
// Run: node --import tsx bench/events.ts [events=3000]
import { spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent } from 'undici';
import { connectAsync } from 'mqtt';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig, type LoadOptions } from '../src/config/load.js';
import { makeTestPki } from '../test/helpers/test-ca.js';
import { Mosquitto } from '../test/helpers/mosquitto.js';
import { fmt, machineLine, summarize, type Summary } from './lib/stats.js';

const N = Number(process.argv[2] ?? 3000);
const RATE = 200; // events per second for the unsaturated latency runs
const WORKERS = 4;
const SECRET = 'bench-secret';

function line(label: string, n: number, seconds: number, lat?: Summary): string {
  const l = lat ? `${fmt(lat.p50)} | ${fmt(lat.p95)} | ${fmt(lat.p99)}` : '- | - | -';
  return `| ${label} | ${n} | ${(n / seconds).toFixed(0)} | ${l} |`;
}

const sampleEvent = (i: number) => ({
  id: randomUUID(),
  type: 'line_crossed',
  timestamp: new Date().toISOString(),
  source: 'video',
  data: { line: 'entrance', direction: 'in', track_id: i, count_in: i, count_out: 0 },
  camera_id: 'cam-1',
});

async function startSink(keyFile: string, certFile: string): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/https-sink.ts', keyFile, certFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const { port } = JSON.parse(first) as { port: number };
  return { url: `https://127.0.0.1:${port}/hook`, stop: () => child.kill('SIGTERM') };
}

async function vigilApp(dataDir: string, overrides: NonNullable<LoadOptions['overrides']>): Promise<FastifyInstance> {
  const config = loadConfig({ env: {}, overrides: { ...overrides, server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } });
  const app = await buildApp(config);
  await app.ready();
  return app;
}

/** Emits `n` events, paced at `rate`/s (or as fast as possible), resolving when all are delivered. */
async function emitAndWait(app: FastifyInstance, n: number, rate: number | null, delivered: () => number): Promise<number> {
  const t0 = performance.now();
  const start = delivered();
  for (let i = 0; i < n; i++) {
    app.vigil.bus.emit('line_crossed', 'video', { line: 'entrance', direction: 'in', track_id: i, count_in: i, count_out: 0 }, 'cam-1');
    if (rate) {
      const due = t0 + ((i + 1) * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    } else if (i % 200 === 199) {
      await new Promise((r) => setImmediate(r));
    }
  }
  while (delivered() - start < n) await new Promise((r) => setTimeout(r, 2));
  return (performance.now() - t0) / 1000;
}

async function benchWebhooks(): Promise<string[]> {
  const pki = makeTestPki();
  const keyFile = join(pki.dir, 'server.key');
  const certFile = join(pki.dir, 'server.crt');
  const sink = await startSink(keyFile, certFile);
  const out: string[] = [];
  try {
    // Baseline: the same request shape (signed JSON, 4 headers) from a bare undici loop.
    const agent = new Agent({ connections: WORKERS, connect: { ca: pki.caCert } });
    const url = new URL(sink.url);
    const post = async (i: number) => {
      const body = JSON.stringify(sampleEvent(i));
      const res = await agent.request({
        origin: url.origin,
        path: url.pathname,
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-event-type': 'line_crossed',
          'x-event-id': 'x',
          'x-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`sink answered ${res.statusCode}`);
    };
    let next = 0;
    const lat: number[] = [];
    const loop = async () => {
      while (next < N) {
        const i = next++;
        const s = performance.now();
        await post(i);
        lat.push(performance.now() - s);
      }
    };
    await Promise.all([loop(), loop()]); // warm-up connections
    next = 0;
    lat.length = 0;
    let t0 = performance.now();
    await Promise.all(Array.from({ length: WORKERS }, loop));
    const bareSecs = (performance.now() - t0) / 1000;
    out.push(line(`bare undici POST loop, ${WORKERS} concurrent (saturated)`, N, bareSecs, summarize(lat)));
    const paced: number[] = [];
    t0 = performance.now();
    const pacedN = Math.min(N, RATE * 5);
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < pacedN; i++) {
      const s = performance.now();
      inflight.push(post(i).then(() => void paced.push(performance.now() - s)));
      const wait = t0 + ((i + 1) * 1000) / RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await Promise.all(inflight);
    out.push(line(`bare undici POST, paced ${RATE}/s`, pacedN, (performance.now() - t0) / 1000, summarize(paced)));
    await agent.close();

    // Vigil: bus.emit -> outbox (LMDB) -> worker -> signed POST, observed when the 2xx comes back.
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-events-'));
    writeFileSync(join(dataDir, 'ca.pem'), pki.caCert);
    const app = await vigilApp(dataDir, { events: { max_workers: WORKERS, ca_file: join(dataDir, 'ca.pem') } });
    try {
      const emitted = new Map<string, number>();
      const lat2: number[] = [];
      let delivered = 0;
      app.vigil.bus.subscribe('bench', (e) => void emitted.set(e.id, performance.now()));
      app.events.worker!.onSettled((job, outcome) => {
        if (outcome.status !== 'delivered') throw new Error(`delivery ${outcome.status}: ${outcome.error}`);
        delivered++;
        const at = emitted.get(job.eventId);
        if (at !== undefined) lat2.push(performance.now() - at);
      });
      const reg = await app.inject({ method: 'POST', url: '/api/v1/events/webhooks', payload: { url: sink.url, event_types: ['line_crossed'], secret: SECRET } });
      if (reg.statusCode !== 200) throw new Error(reg.body);
      await emitAndWait(app, 200, null, () => delivered); // warm-up
      lat2.length = 0;
      const secs = await emitAndWait(app, N, null, () => delivered);
      out.push(line(`Vigil emit -> delivered, ${WORKERS} workers (saturated; latency includes queueing)`, N, secs, summarize(lat2)));
      out.push(`| ratio Vigil / bare (saturated throughput) | | ${(N / secs / (N / bareSecs)).toFixed(2)} | | | |`);
      lat2.length = 0;
      const pacedN2 = Math.min(N, RATE * 5);
      const secs2 = await emitAndWait(app, pacedN2, RATE, () => delivered);
      out.push(line(`Vigil emit -> delivered, paced ${RATE}/s`, pacedN2, secs2, summarize(lat2)));
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    sink.stop();
    pki.cleanup();
  }
  return out;
}

async function benchMqtt(): Promise<string[]> {
  const broker = new Mosquitto();
  await broker.start();
  const out: string[] = [];
  try {
    const raw = await connectAsync(broker.url, { username: broker.username, password: broker.password, clientId: 'bench-raw' });
    const body = JSON.stringify(sampleEvent(0));
    const publishAll = async (n: number) => {
      // The mirror keeps 100 QoS 1 publishes in flight; the raw loop gets the same window.
      let next = 0;
      const loop = async () => {
        while (next < n) {
          next++;
          await raw.publishAsync('bench/events/line_crossed', body, { qos: 1 });
        }
      };
      await Promise.all(Array.from({ length: 100 }, loop));
    };
    await publishAll(500);
    let t0 = performance.now();
    await publishAll(N);
    const rawSecs = (performance.now() - t0) / 1000;
    out.push(line('raw mqtt client, QoS 1, 100 in flight', N, rawSecs));
    await raw.endAsync();

    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-mqtt-'));
    const app = await vigilApp(dataDir, {
      mqtt: { url: broker.url, username: broker.username, password_file: broker.passwordFile, client_id: 'bench-vigil' },
    });
    try {
      const mirror = app.events.mirror;
      while (!mirror.connected) await new Promise((r) => setTimeout(r, 10));
      await emitAndWait(app, 500, null, () => mirror.published);
      t0 = performance.now();
      const secs = await emitAndWait(app, N, null, () => mirror.published);
      out.push(line('Vigil mirror: emit -> PUBACK (durable queue), QoS 1', N, secs));
      out.push(`| ratio Vigil / raw | | ${(N / secs / (N / rawSecs)).toFixed(2)} | | | |`);
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    await broker.cleanup();
  }
  return out;
}

console.log(machineLine());
console.log(`events per run: ${N}; webhook receiver: node https server in a child process; broker: mosquitto ${'2.x'} on loopback\n`);
console.log('| run | n | per second | p50 ms | p95 ms | p99 ms |');
console.log('|---|---|---|---|---|---|');
for (const l of await benchWebhooks()) console.log(l);
for (const l of await benchMqtt()) console.log(l);
console.log(`\n${machineLine()}`);
