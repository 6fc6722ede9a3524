/**
 * Two builds of the daemon on the same face requests, alternated in blocks so that both see the
 * same box: this checkout against a git revision, each compiled with tsc and run as systemd runs
 * it (node dist/src/cli.js, defaults, CPU provider), both on this checkout's models and
 * hw-profiles. The revision's src/ is taken with `git archive` into bench/out/ab/<rev>; nothing
 * else of the checkout changes. Requests go over HTTP with a pre-encoded multipart body (undici,
 * keep-alive), so the client's own cost stays small: /detect of a one-face 640x480 JPEG and of
 * the six-face group photo, and /verify of two one-face JPEGs, sequential and from 4
 * concurrent clients. Prints p50/p95 per build and the ratio this/base, and the CPU time each
 * daemon process used per request (all its threads, from /proc), which a loaded box inflates far
 * less than wall time.
 *
 *   node --import tsx bench/face-ab.ts --base <rev> [--n 100] [--block 10] [--env VIGIL_X=value ...]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { buildCheckout, buildRevision, cpuMs, ROOT, startBuild } from './lib/ab-builds.js';
import { MultipartPoster, type Part } from './lib/multipart-post.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const BASE = arg('--base');
const N = Number(arg('--n')) || 100;
// Requests per build before switching; a build's first requests after a switch find its model
// weights out of the caches (the other build ran meanwhile), so smaller blocks measure colder.
const BLOCK = Number(arg('--block')) || 10;
// Settings both builds get, as environment variables: --env VIGIL_FACE_ENABLE_DEMOGRAPHICS=false (repeatable).
const EXTRA_ENV = Object.fromEntries(
  process.argv.flatMap((a, i) => (a === '--env' && process.argv[i + 1]?.includes('=') ? [process.argv[i + 1]!.split(/=(.*)/s).slice(0, 2) as [string, string]] : [])),
);
if (!BASE) {
  console.error('usage: node --import tsx bench/face-ab.ts --base <git revision> [--n 100] [--block 10] [--env VIGIL_X=value ...]');
  process.exit(2);
}

const poster = new MultipartPoster();
async function post(base: string, path: string, parts: Part[]): Promise<number> {
  const res = await poster.post(`${base}/api/v1${path}`, parts);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body}`);
  return res.ms;
}

async function main() {
  const baseEntry = buildRevision(BASE!);
  const entry = buildCheckout();
  // This checkout first, the base second: the order the table prints them in.
  const builds = [{ daemon: await startBuild(entry, 'face', EXTRA_ENV) }, { daemon: await startBuild(resolve(baseEntry), 'face', EXTRA_ENV) }];
  const faces = join(ROOT, '..', 'shared', 'testdata', 'faces', 'identities', 'fr_barack_obama');
  const jpeg640 = (file: string) => sharp(join(faces, file)).resize(640, 480, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer();
  const [one, two] = await Promise.all([jpeg640('obama.jpg'), jpeg640('obama2.jpg')]);
  const six = readFileSync(join(ROOT, '..', 'shared', 'testdata', 'faces', 'multi', 'faceapi_bbt4.jpg'));
  const cases: [string, string, Part[]][] = [
    ['/detect one face 640x480', '/detect', [{ name: 'image', file: one, contentType: 'image/jpeg' }]],
    ['/detect six faces 710x473', '/detect', [{ name: 'image', file: six, contentType: 'image/jpeg' }]],
    [
      '/verify two 640x480 one-face',
      '/verify',
      [
        { name: 'image1', file: one, contentType: 'image/jpeg' },
        { name: 'image2', file: two, contentType: 'image/jpeg' },
      ],
    ],
  ];
  console.log(machineLine());
  console.log(
    `builds: this checkout vs ${BASE}, both compiled and run as node dist/src/cli.js with the defaults${Object.keys(EXTRA_ENV).length ? ` and ${JSON.stringify(EXTRA_ENV)}` : ''}; n=${N} per row, alternated in blocks of ${BLOCK} requests\n`,
  );
  console.log('| request | build | n | p50 ms | p95 ms | p50 this/base | daemon CPU ms per request | CPU this/base |');
  console.log('|---|---|---|---|---|---|---|---|');
  try {
    for (const [label, path, parts] of cases) {
      for (const clients of [1, 4]) {
        const samples = builds.map(() => [] as number[]);
        const cpu = builds.map(() => 0);
        for (const b of builds) for (let i = 0; i < 3; i++) await post(b.daemon.url, path, parts);
        for (let done = 0; done < N; done += BLOCK) {
          for (const [k, b] of builds.entries()) {
            let left = Math.min(BLOCK, N - done);
            const c0 = cpuMs(b.daemon.proc.pid!);
            await Promise.all(
              Array.from({ length: clients }, async () => {
                while (left-- > 0) samples[k]!.push(await post(b.daemon.url, path, parts));
              }),
            );
            cpu[k]! += cpuMs(b.daemon.proc.pid!) - c0;
          }
        }
        const [mine, base] = samples.map(summarize) as [ReturnType<typeof summarize>, ReturnType<typeof summarize>];
        const [cpuMine, cpuBase] = cpu.map((c, k) => c / samples[k]!.length) as [number, number];
        const how = clients === 1 ? 'sequential' : `${clients} concurrent`;
        console.log(`| ${label}, ${how} | this | ${mine.n} | ${fmt(mine.p50)} | ${fmt(mine.p95)} | ${(mine.p50 / base.p50).toFixed(2)} | ${fmt(cpuMine)} | ${(cpuMine / cpuBase).toFixed(2)} |`);
        console.log(`| ${label}, ${how} | base | ${base.n} | ${fmt(base.p50)} | ${fmt(base.p95)} | | ${fmt(cpuBase)} | |`);
      }
    }
  } finally {
    for (const b of builds) b.daemon.proc.kill('SIGTERM');
    await Promise.all(builds.map((b) => b.daemon.exited));
    await poster.close();
  }
}

await main();
