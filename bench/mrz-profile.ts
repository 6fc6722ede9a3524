// Where a /documents/mrz (or /scan) request's time goes: per request, the model runs it makes
// (detector, recogniser, orientation classifier: count and time in the pool), the main thread's
// busy time (JavaScript, OpenCV.js, the event loop's own work), the process's CPU time (all
// threads: a figure that a busy box disturbs less than wall time) and the stages' inclusive times.
// Requests are made one at a time through the real app (inject), on generated documents.
// Run: node --import tsx bench/mrz-profile.ts [--n 12] [--seed N] [--url /api/v1/documents/mrz] [--cpu-prof out.cpuprofile] [--timeline]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { VigilContext } from '../src/core/context.js';
import { DocumentService } from '../src/modules/document/document-service.js';
import { MrzReader } from '../src/modules/document/mrz-reader.js';
import { OcrEngine } from '../src/modules/document/ocr-engine.js';
import { OCR_MODELS } from '../src/modules/document/plugin.js';
import { TextDetector } from '../src/modules/document/text-detector.js';
import { generatedDocument } from '../test/fixtures/mrz-docs/render.js';
import { multipart } from '../test/helpers/multipart.js';
import { fmt, machineLine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '12' },
    seed: { type: 'string' },
    url: { type: 'string', default: '/api/v1/documents/mrz' },
    'cpu-prof': { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
const N = Number(values.n);
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const URL = values.url!;

/** Per-request tallies: name -> [calls, ms]. */
let tally = new Map<string, [number, number]>();
/** With --timeline, every wrapped call of the request: name, start and end (ms from the request's start). */
let timeline: [string, number, number][] = [];
let requestStart = 0;
const add = (name: string, ms: number) => {
  const end = performance.now() - requestStart;
  timeline.push([name, end - ms, end]);
  const t = tally.get(name) ?? [0, 0];
  t[0]++;
  t[1] += ms;
  tally.set(name, t);
};

/** Tallies an amount (not a time) under `name`: its "ms" column holds the amount. */
const addCount = (name: string, amount: number) => {
  const t = tally.get(name) ?? [0, 0];
  t[0]++;
  t[1] += amount;
  tally.set(name, t);
};

/** Wraps an async or sync method so each call's inclusive wall time is tallied under `name`. */
function wrap(proto: object, method: string, name: string): void {
  const target = proto as Record<string, (...a: unknown[]) => unknown>;
  const orig = target[method]!;
  target[method] = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    const out = orig.apply(this, args);
    if (out instanceof Promise) return out.finally(() => add(name, performance.now() - t0));
    add(name, performance.now() - t0);
    return out;
  };
}

wrap(DocumentService.prototype, 'working', 'stage: working copy + outline');
wrap(DocumentService.prototype, 'prepare', 'stage: prepare (detect + upright)');
wrap(DocumentService.prototype, 'readTiles', 'stage: tiles');
wrap(MrzReader.prototype, 'read', 'stage: MrzReader.read');
wrap(MrzReader.prototype, 'readGroup', '  readGroup');
wrap(MrzReader.prototype, 'parseSet', '  parseSet');
wrap(MrzReader.prototype, 'readQuads', '  reader.readQuads (crop + recognise)');
wrap(MrzReader.prototype, 'withGlyphs', '  glyph stage');
wrap(MrzReader.prototype, 'finish', '  finish (repair + parse)');
wrap(OcrEngine.prototype, 'crop', '  engine.crop (sync)');
wrap(TextDetector.prototype, 'boxesFromMap', '  DB post-processing (sync)');
wrap(OcrEngine.prototype, 'readQuads', '  engine.readQuads (cut + post)');

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
const app = await buildApp(loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } }));
await app.ready();
const vigil = (app as unknown as { vigil: VigilContext }).vigil;
for (const [label, name] of Object.entries(OCR_MODELS)) {
  const runner = vigil.models.tryGet(name)?.runner as unknown as Record<string, (...a: unknown[]) => Promise<unknown>> | undefined;
  if (!runner) continue;
  for (const m of ['run', 'runReduced']) {
    const orig = runner[m]!;
    runner[m] = (...args: unknown[]) => {
      const t0 = performance.now();
      // The recogniser's cost grows with its input's width: the columns it was given, per request.
      const width = (args[0] as { dims: number[] }[] | undefined)?.[0]?.dims[3];
      if (label === 'rec' && width !== undefined) addCount('rec input columns', width);
      return orig(...args).finally(() => add(`model: ${label}`, performance.now() - t0));
    };
  }
}

const images: Buffer[] = [];
for (let i = 0; i < N; i++) {
  images.push((await generatedDocument(SEED, i)).doc.image);
}
console.log(machineLine());
console.log(`${URL} on ${N} generated documents, seed ${SEED}; one request at a time, after 2 warm-up requests`);

const post = (bytes: Buffer) => {
  const { payload, headers } = multipart([{ name: 'image', file: bytes }]);
  return app.inject({ method: 'POST', url: URL, payload, headers });
};
for (let i = 0; i < 2; i++) await post(images[i % N]!);

// With --cpu-prof FILE, the main thread's V8 profile of the timed requests alone (not start-up or rendering).
const inspector = values['cpu-prof'] ? new Session() : undefined;
if (inspector) {
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
}
const perRequest: { wall: number; busy: number; cpu: number; tally: Map<string, [number, number]>; status: number }[] = [];
for (const img of images) {
  tally = new Map();
  timeline = [];
  const elu0 = performance.eventLoopUtilization();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  requestStart = t0;
  const res = await post(img);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const elu = performance.eventLoopUtilization(elu0);
  if (values.timeline) {
    console.log(`\nrequest ${perRequest.length}: ${fmt(wall)} ms`);
    for (const [name, a, b] of timeline.sort((x, y) => x[1] - y[1])) console.log(`  ${fmt(a).padStart(6)} .. ${fmt(b).padStart(6)}  ${name.trim()}`);
  }
  perRequest.push({ wall, busy: elu.active, cpu: (c.user + c.system) / 1000, tally, status: res.statusCode });
}

if (inspector) {
  const { profile } = await inspector.post('Profiler.stop');
  writeFileSync(values['cpu-prof']!, JSON.stringify(profile));
  inspector.disconnect();
}
const names = [...new Set(perRequest.flatMap((r) => [...r.tally.keys()]))].sort();
const med = (xs: number[]) => percentile(xs, 50);
console.log(
  `\nwall p50 ${fmt(med(perRequest.map((r) => r.wall)))} ms, process CPU p50 ${fmt(med(perRequest.map((r) => r.cpu)))} ms (all threads), main thread busy p50 ${fmt(med(perRequest.map((r) => r.busy)))} ms; statuses ${perRequest.map((r) => r.status).join(',')}`,
);
console.log('\n| per request | calls mean | calls max | ms p50 (columns for rec input) | ms mean |');
console.log('|---|---|---|---|---|');
for (const name of names) {
  const calls = perRequest.map((r) => r.tally.get(name)?.[0] ?? 0);
  const ms = perRequest.map((r) => r.tally.get(name)?.[1] ?? 0);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`| ${name} | ${mean(calls).toFixed(1)} | ${Math.max(...calls)} | ${fmt(med(ms))} | ${fmt(mean(ms))} |`);
}
console.log('\nper request: wall ms, CPU ms, main-thread busy ms, det/rec/cls calls, recogniser input columns, status');
for (const r of perRequest) {
  const c = (k: string) => r.tally.get(`model: ${k}`)?.[0] ?? 0;
  console.log(`${fmt(r.wall)}\t${fmt(r.cpu)}\t${fmt(r.busy)}\t${c('det')}/${c('rec')}/${c('cls')}\t${r.tally.get('rec input columns')?.[1] ?? 0}\t${r.status}`);
}
await app.close();
rmSync(dataDir, { recursive: true, force: true });
