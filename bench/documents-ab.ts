/**
 * Two builds of the daemon on the same document requests, alternated in blocks so that both see
 * the same box (a loaded box moves wall times by more than most changes): this checkout against
 * a git revision (bench/lib/ab-builds.ts), on K generated ICAO documents (fresh seed, printed;
 * --seed replays), every build timed on the same images in the same order. Requests go over
 * HTTP with a pre-encoded multipart body (undici, keep-alive), one at a time. Prints p50/p95 per
 * build and endpoint, the ratio this/base, and the CPU time each daemon process used per
 * request (all its threads, from /proc), which a loaded box inflates far less than wall time, and
 * that of its main thread alone (the event loop).
 *
 *   node --import tsx bench/documents-ab.ts --base <rev> [--generated 6] [--seed N] [--runs 24] [--block 6] [--endpoints mrz,scan]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { generatedDocument } from '../test/fixtures/mrz-docs/render.js';
import { multipart } from '../test/helpers/multipart.js';
import { buildCheckout, buildRevision, cpuMs, mainThreadCpuMs, startBuild } from './lib/ab-builds.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    generated: { type: 'string', default: '6' },
    seed: { type: 'string' },
    runs: { type: 'string', default: '24' },
    block: { type: 'string', default: '6' },
    endpoints: { type: 'string', default: 'mrz,scan' },
  },
});
if (!values.base) {
  console.error('usage: node --import tsx bench/documents-ab.ts --base <git revision> [--generated 6] [--seed N] [--runs 24] [--block 6] [--endpoints mrz,scan]');
  process.exit(2);
}
const K = Number(values.generated);
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(values.runs);
// Requests per build before switching; a block that is a multiple of K times every image equally often.
const BLOCK = Number(values.block);
const ENDPOINTS = values.endpoints!.split(',');

const images: Buffer[] = [];
for (let i = 0; i < K; i++) {
  // The same documents as bench/documents.ts and bench/mrz-profile.ts draw for this seed.
  images.push((await generatedDocument(SEED, i)).doc.image);
}

const agent = new Agent({ keepAliveTimeout: 30_000, connections: 2 });
async function post(base: string, path: string, file: Buffer): Promise<{ ms: number; status: number }> {
  const { payload, headers } = multipart([{ name: 'image', file }]);
  const t0 = performance.now();
  const res = await request(`${base}/api/v1/documents/${path}`, { method: 'POST', body: payload, headers, dispatcher: agent });
  await res.body.text();
  const ms = performance.now() - t0;
  // A generated document may hold a zone a build misses (422 NO_MRZ): it is still timed.
  if (res.statusCode !== 200 && res.statusCode !== 422) throw new Error(`${path}: ${res.statusCode}`);
  return { ms, status: res.statusCode };
}

const baseEntry = buildRevision(values.base);
const entry = buildCheckout();
// This checkout first, the base second: the order the table prints them in.
const builds = [await startBuild(entry, 'document'), await startBuild(resolve(baseEntry), 'document')];
console.log(machineLine());
console.log(`builds: this checkout vs ${values.base}; ${K} generated documents, seed ${SEED}; ${RUNS} requests per build and endpoint, one at a time, alternated in blocks of ${BLOCK}\n`);
console.log('| endpoint | build | n | p50 ms | p95 ms | p50 this/base | daemon CPU ms per request | CPU this/base | main-thread CPU ms per request | main this/base | 422s |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
try {
  for (const path of ENDPOINTS) {
    const samples = builds.map(() => [] as number[]);
    const cpu = builds.map(() => 0);
    const mainCpu = builds.map(() => 0);
    const refused = builds.map(() => 0);
    for (const b of builds) for (let i = 0; i < 3; i++) await post(b.url, path, images[i % K]!);
    for (let done = 0; done < RUNS; done += BLOCK) {
      for (const [k, b] of builds.entries()) {
        const c0 = cpuMs(b.proc.pid!);
        const m0 = mainThreadCpuMs(b.proc.pid!);
        for (let i = done; i < Math.min(done + BLOCK, RUNS); i++) {
          const r = await post(b.url, path, images[i % K]!);
          samples[k]!.push(r.ms);
          if (r.status === 422) refused[k]!++;
        }
        cpu[k]! += cpuMs(b.proc.pid!) - c0;
        mainCpu[k]! += mainThreadCpuMs(b.proc.pid!) - m0;
      }
    }
    const [mine, base] = samples.map(summarize) as [ReturnType<typeof summarize>, ReturnType<typeof summarize>];
    const [cpuMine, cpuBase] = cpu.map((c, k) => c / samples[k]!.length) as [number, number];
    const [mainMine, mainBase] = mainCpu.map((c, k) => c / samples[k]!.length) as [number, number];
    console.log(
      `| /documents/${path} | this | ${mine.n} | ${fmt(mine.p50)} | ${fmt(mine.p95)} | ${(mine.p50 / base.p50).toFixed(2)} | ${fmt(cpuMine)} | ${(cpuMine / cpuBase).toFixed(2)} | ${fmt(mainMine)} | ${(mainMine / mainBase).toFixed(2)} | ${refused[0]} |`,
    );
    console.log(`| /documents/${path} | base | ${base.n} | ${fmt(base.p50)} | ${fmt(base.p95)} | | ${fmt(cpuBase)} | | ${fmt(mainBase)} | | ${refused[1]} |`);
  }
} finally {
  for (const b of builds) b.proc.kill('SIGTERM');
  await Promise.all(builds.map((b) => b.exited));
  await agent.close();
}
console.log(machineLine());
