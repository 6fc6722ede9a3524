/**
 * HTTP latency of POST /api/v1/detect and /verify on the real daemon (spawned as a child
 * process on 127.0.0.1), sequential and 4 concurrent, with the per-stage breakdown the
 * routes report in their Server-Timing header, against two baselines measured in the same
 * run: the same daemon with one inference worker (server.inference_workers 1, what Vigil
 * ran before the pool), its requests interleaved with the default daemon's in blocks of 5
 * so that both see the same load on a shared box; and the raw onnxruntime time of the same
 * models at the same input sizes (session.run alone, in this process, the graphs as the
 * daemon's CPU sessions get them), measured in blocks interleaved with the daemons' blocks
 * too: on a loaded box a floor measured before or after the requests sees another load and
 * makes the ratio noise. The rewritten models are also timed as shipped, at the end. A
 * third daemon, interleaved too, runs /detect with face.enable_demographics false: the
 * pipeline the face issue set its targets for. Each request's multipart body is encoded before
 * its clock starts and sent over a keep-alive connection (bench/lib/multipart-post.ts), so the
 * client's own work is not counted as the daemon's; the same upload to a bare fastify route
 * (bench/bare-fastify.ts), timed in the same blocks, gives the HTTP floor: the last ratio is
 * against the raw-model floor plus that.
 *
 *   node --import tsx bench/face.ts [--n 40]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { packageRoot } from '../src/core/package-root.js';
import { rewriteForCpu } from '../src/runtime/cpu-graph-rewrite.js';
import { MultipartPoster, type Part } from './lib/multipart-post.js';
import { fmt, machineLine, row, summarize, timeIt, type Summary } from './lib/stats.js';

const ROOT = packageRoot();
const FACES = resolve(ROOT, '..', 'shared', 'testdata', 'faces');
const N = Number(process.argv[process.argv.indexOf('--n') + 1]) || 40;
const STAGES = ['decode', 'detect', 'detect_model', 'align', 'embed', 'quality', 'liveness', 'demographics'] as const;

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

async function startDaemon(port: number, dataDir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      VIGIL_HOST: '127.0.0.1',
      VIGIL_PORT: String(port),
      VIGIL_DATA_DIR: dataDir,
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_SERVER_HW_PROFILE: 'x86-cpu',
      // This bench measures the pipeline, not admission control: its concurrent clients queue.
      VIGIL_LIMITS_INFERENCE_QUEUE: '64',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/admin/health`);
      const body = (await r.json()) as { modules: { face: boolean } };
      if (body.modules.face) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('daemon did not become healthy');
}

interface Sample {
  ms: number;
  stages: Record<string, number>;
}

const poster = new MultipartPoster();
async function post(url: string, parts: Part[]): Promise<Sample> {
  const res = await poster.post(url, parts);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.body}`);
  return { ms: res.ms, stages: res.stages };
}

async function samples(url: string, files: Part[], concurrency: number, n: number): Promise<Sample[]> {
  const out: Sample[] = [];
  let left = n;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) out.push(await post(url, files));
    }),
  );
  return out;
}

const BLOCK = 5;

/** Raw sessions of the floor's models, timed in blocks between the daemons' blocks. */
interface RawFloor {
  sessions: { key: string; session: ort.InferenceSession; feeds: Record<string, ort.Tensor> }[];
  times: Record<string, number[]>;
}

async function openFloor(models: [string, string, number[]][]): Promise<RawFloor> {
  const sessions = [];
  for (const [key, file, dims] of models) {
    const session = await ort.InferenceSession.create(rewriteForCpu(readFileSync(join(ROOT, 'models', file))).bytes, { graphOptimizationLevel: 'all', logSeverityLevel: 3 });
    const size = dims.reduce((a, b) => a * b, 1);
    const feeds = {
      [session.inputNames[0]!]: new ort.Tensor(
        'float32',
        Float32Array.from({ length: size }, () => Math.random() * 2 - 1),
        dims,
      ),
    };
    await session.run(feeds);
    sessions.push({ key, session, feeds });
  }
  return { sessions, times: {} };
}

async function floorBlock(floor: RawFloor, n: number): Promise<void> {
  for (const { key, session, feeds } of floor.sessions) {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await session.run(feeds);
      (floor.times[key] ??= []).push(performance.now() - t0);
    }
  }
}

/**
 * N samples from each daemon, in alternating blocks, and after each round a raw-model block and
 * a block of the same upload to a bare fastify route (the HTTP floor); each daemon's wall time
 * is summed over its own blocks.
 */
async function interleaved(urls: string[], files: Part[], concurrency: number, floor: RawFloor, bareUpload: string) {
  for (const url of [...urls, bareUpload]) for (let i = 0; i < 3; i++) await post(url, files);
  const out = urls.map(() => ({ samples: [] as Sample[], wall: 0 }));
  const http: number[] = [];
  for (let done = 0; done < N; done += BLOCK) {
    for (const [i, url] of urls.entries()) {
      const t0 = performance.now();
      out[i]!.samples.push(...(await samples(url, files, concurrency, Math.min(BLOCK, N - done))));
      out[i]!.wall += performance.now() - t0;
    }
    await floorBlock(floor, Math.min(BLOCK, N - done));
    http.push(...(await samples(bareUpload, files, 1, Math.min(BLOCK, N - done))).map((x) => x.ms));
  }
  return { out, http };
}

/** bench/bare-fastify.ts as a child process: its POST /upload reads the multipart file as Vigil's routes do. */
async function startBareFastify(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'bare-fastify.ts'), String(await freePort())], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((res, rej) => {
    let seen = '';
    child.stdout!.on('data', (d: Buffer) => {
      seen += d.toString();
      const m = /LISTENING (\S+)/.exec(seen);
      if (m) res(`${m[1]}/upload`);
    });
    child.once('exit', (code) => rej(new Error(`bare fastify exited (${code})`)));
  });
  return { url, child };
}

/** session.run alone on the graph the daemon's CPU sessions get (cpu-graph-rewrite.ts), or on the file as shipped. */
async function rawModel(file: string, dims: number[], asShipped = false): Promise<Summary> {
  const bytes = readFileSync(join(ROOT, 'models', file));
  const model = asShipped ? bytes : rewriteForCpu(bytes).bytes;
  const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'all', logSeverityLevel: 3 });
  const size = dims.reduce((a, b) => a * b, 1);
  const data = Float32Array.from({ length: size }, () => Math.random() * 2 - 1);
  const feeds = { [session.inputNames[0]!]: new ort.Tensor('float32', data, dims) };
  const s = summarize(await timeIt(N, () => session.run(feeds)));
  await session.release();
  return s;
}

const median = (xs: number[]) => summarize(xs).p50;

async function main() {
  const one = await sharp(join(FACES, 'identities', 'fr_barack_obama', 'obama.jpg'))
    .resize(640, 480, { fit: 'cover', position: 'top' })
    .jpeg({ quality: 90 })
    .toBuffer();
  const one2 = await sharp(join(FACES, 'identities', 'fr_barack_obama', 'obama2.jpg'))
    .resize(640, 480, { fit: 'cover', position: 'top' })
    .jpeg({ quality: 90 })
    .toBuffer();
  const six = readFileSync(join(FACES, 'multi', 'faceapi_bbt4.jpg'));
  // The third is the pipeline issue #3 set its targets for: demographics came later (#9).
  const daemons: { name: string; env: Record<string, string> }[] = [
    { name: 'pool', env: {} },
    { name: '1 worker', env: { VIGIL_SERVER_INFERENCE_WORKERS: '1' } },
    { name: 'pool, demographics off', env: { VIGIL_FACE_ENABLE_DEMOGRAPHICS: 'false' } },
  ];
  const started = [];
  for (const d of daemons) {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
    started.push({ ...d, dataDir, child: await startDaemon(port, dataDir, d.env), base: `http://127.0.0.1:${port}/api/v1` });
  }
  console.log(machineLine());
  console.log(
    `daemons: defaults (scrfd_500m, faceplugin_512d, passive liveness, quality and demographics on), CPU provider; the default inference pool vs server.inference_workers 1, and the pool with face.enable_demographics false (/detect; /verify never runs demographics); n=${N} per row, interleaved in blocks of ${BLOCK}\n`,
  );
  const jpeg = (name: string, file: Buffer): Part => ({ name, file, filename: `${name}.jpg`, contentType: 'image/jpeg' });
  const cases: [string, string, Part[]][] = [
    ['/detect one face 640x480', '/detect', [jpeg('image', one)]],
    ['/detect six faces 710x473', '/detect', [jpeg('image', six)]],
    ['/verify two 640x480 one-face', '/verify', [jpeg('image1', one), jpeg('image2', one2)]],
  ];
  const results: { label: string; s: Summary; stages: Record<string, number>; vsOne: number; http: number }[] = [];
  const bare = await startBareFastify();
  const floor = await openFloor([
    ['det', 'face_det_scrfd_500m_kps.onnx', [1, 3, 480, 640]],
    ['rec', 'face_rec_faceplugin_512d.onnx', [1, 3, 112, 112]],
    ['l1', 'antispoof_minifasnet_v2_scale2.7_80x80.onnx', [1, 3, 80, 80]],
    ['l2', 'antispoof_minifasnet_v1se_scale4.0_80x80.onnx', [1, 3, 80, 80]],
    ['attr', 'face_attr_hse_faceres_224.onnx', [1, 224, 224, 3]],
  ]);
  try {
    for (const [label, path, files] of cases) {
      for (const c of [1, 4]) {
        const daemonsHere = path === '/verify' ? started.slice(0, 2) : started;
        const { out: measured, http } = await interleaved(
          daemonsHere.map((d) => d.base + path),
          files,
          c,
          floor,
          bare.url,
        );
        const single = measured[1]!;
        for (const [i, r] of measured.entries()) {
          const stages = Object.fromEntries(STAGES.map((k) => [k, median(r.samples.map((x) => x.stages[k] ?? 0))]));
          const s = summarize(r.samples.map((x) => x.ms));
          const rate = ((r.samples.length / r.wall) * 1000).toFixed(1);
          const vsOne = s.p50 / summarize(single.samples.map((x) => x.ms)).p50;
          results.push({ label: `${label}, ${c === 1 ? 'sequential' : '4 concurrent'}, ${started[i]!.name} (${rate} req/s)`, s, stages, vsOne, http: median(http) });
        }
      }
    }
  } finally {
    // Both exit promises before either kill: a child that exits first must not be missed.
    const exited = started.map((d) => new Promise((r) => d.child.once('exit', r)));
    for (const d of started) d.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    await Promise.all(exited);
    await poster.close();
    for (const d of started) rmSync(d.dataDir, { recursive: true, force: true });
  }

  // Baseline in the same run, interleaved with the requests: raw session.run of the same models and sizes.
  const timed = (k: string) => summarize(floor.times[k]!);
  const [det, rec, l1, l2, attr] = [timed('det'), timed('rec'), timed('l1'), timed('l2'), timed('attr')];
  for (const s of floor.sessions) await s.session.release();
  // The three models cpu-graph-rewrite.ts changes, as shipped: what the rewrite saves.
  const shipped = {
    rec: await rawModel('face_rec_faceplugin_512d.onnx', [1, 3, 112, 112], true),
    l1: await rawModel('antispoof_minifasnet_v2_scale2.7_80x80.onnx', [1, 3, 80, 80], true),
    attr: await rawModel('face_attr_hse_faceres_224.onnx', [1, 224, 224, 3], true),
  };
  // Verify faces and the demographics-off daemon run no demographics model.
  const perFaceBare = rec.p50 + l1.p50 + l2.p50;
  const perFace = perFaceBare + attr.p50;
  const floorDetect = det.p50 + perFace;
  const floorVerify = 2 * (det.p50 + perFaceBare);
  console.log('| request | n | p50 ms | p95 ms | x 1 worker | x raw-model floor | bare HTTP ms | x floor + bare HTTP | ' + STAGES.map((k) => `${k} p50`).join(' | ') + ' |');
  console.log('|---|---|---|---|---|---|---|---|' + STAGES.map(() => '---').join('|') + '|');
  for (const r of results) {
    const faceCost = r.label.includes('demographics off') ? perFaceBare : perFace;
    const floor = r.label.startsWith('/verify') ? floorVerify : det.p50 + (r.label.includes('six') ? 6 : 1) * faceCost;
    const ratios = `${(r.s.p50 / floor).toFixed(2)} | ${fmt(r.http)} | ${(r.s.p50 / (floor + r.http)).toFixed(2)}`;
    console.log(row(r.label, r.s, `${r.vsOne.toFixed(2)} | ${ratios} | ${STAGES.map((k) => fmt(r.stages[k]!)).join(' | ')}`));
  }
  console.log(
    "\nBaseline, same run: raw onnxruntime session.run (CPU, main thread, onnxruntime's default threads, random input in [-1, 1]) of the graph the daemon's CPU sessions get, in blocks between the daemons' blocks; last column: the file as shipped, before cpu-graph-rewrite.ts (timed after the requests)\n",
  );
  console.log('| model | n | p50 ms | p95 ms | p50 as shipped |');
  console.log('|---|---|---|---|---|');
  console.log(row('scrfd_500m @ 640x480', det, '(unchanged)'));
  console.log(row('faceplugin_512d @ 112x112', rec, fmt(shipped.rec.p50)));
  console.log(row('MiniFASNetV2 @ 80x80', l1, fmt(shipped.l1.p50)));
  console.log(row('MiniFASNetV1SE @ 80x80', l2, '(as V2)'));
  console.log(row('HSE FaceRes (demographics) @ 224x224', attr, fmt(shipped.attr.p50)));
  console.log(
    `\nraw-model floor: /detect one face ${fmt(floorDetect)} ms (detector + recognizer + 2 liveness + demographics; ${fmt(det.p50 + perFaceBare)} ms without demographics), /verify ${fmt(floorVerify)} ms (no demographics)`,
  );
}

await main();
