/**
 * HTTP latency of POST /api/v1/detect and /verify on the real daemon (spawned as a child
 * process on 127.0.0.1), sequential and 4 concurrent, with the per-stage breakdown the
 * routes report in their Server-Timing header, against a baseline measured in the same run:
 * the raw onnxruntime time of the same models at the same input sizes (session.run alone,
 * in this process, with the daemon idle).
 *
 *   node --import tsx bench/face.ts [--n 40]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { packageRoot } from '../src/core/package-root.js';
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

async function startDaemon(port: number, dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli.ts')], {
    cwd: ROOT,
    env: { ...process.env, VIGIL_HOST: '127.0.0.1', VIGIL_PORT: String(port), VIGIL_DATA_DIR: dataDir, VIGIL_LOG_LEVEL: 'warn', VIGIL_SERVER_HW_PROFILE: 'x86-cpu' },
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

async function post(url: string, files: Record<string, Buffer>): Promise<Sample> {
  const form = new FormData();
  for (const [name, buf] of Object.entries(files)) form.append(name, new Blob([new Uint8Array(buf)], { type: 'image/jpeg' }), `${name}.jpg`);
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', body: form });
  const body = await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${Buffer.from(body).toString()}`);
  const stages: Record<string, number> = {};
  for (const part of (res.headers.get('server-timing') ?? '').split(',')) {
    const m = /^\s*(\w+);dur=([\d.]+)/.exec(part);
    if (m) stages[m[1]!] = Number(m[2]);
  }
  return { ms, stages };
}

async function run(url: string, files: Record<string, Buffer>, concurrency: number): Promise<Sample[]> {
  for (let i = 0; i < 3; i++) await post(url, files);
  const out: Sample[] = [];
  let left = N;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) out.push(await post(url, files));
    }),
  );
  return out;
}

async function rawModel(file: string, dims: number[]): Promise<Summary> {
  const session = await ort.InferenceSession.create(join(ROOT, 'models', file), { graphOptimizationLevel: 'all', logSeverityLevel: 3 });
  const size = dims.reduce((a, b) => a * b, 1);
  const data = Float32Array.from({ length: size }, () => Math.random() * 2 - 1);
  const feeds = { [session.inputNames[0]!]: new ort.Tensor('float32', data, dims) };
  const s = summarize(await timeIt(N, () => session.run(feeds)));
  await session.release();
  return s;
}

const median = (xs: number[]) => summarize(xs).p50;

async function main() {
  const one = await sharp(join(FACES, 'identities', 'fr_barack_obama', 'obama.jpg')).resize(640, 480, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer();
  const one2 = await sharp(join(FACES, 'identities', 'fr_barack_obama', 'obama2.jpg')).resize(640, 480, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer();
  const six = readFileSync(join(FACES, 'multi', 'faceapi_bbt4.jpg'));
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const child = await startDaemon(port, dataDir);
  const base = `http://127.0.0.1:${port}/api/v1`;
  console.log(machineLine());
  console.log(`daemon: defaults (scrfd_500m, faceplugin_512d, passive liveness, quality and demographics on), CPU provider; n=${N} per row\n`);
  const cases: [string, string, Record<string, Buffer>][] = [
    ['/detect one face 640x480', `${base}/detect`, { image: one }],
    ['/detect six faces 710x473', `${base}/detect`, { image: six }],
    ['/verify two 640x480 one-face', `${base}/verify`, { image1: one, image2: one2 }],
  ];
  const results: { label: string; s: Summary; stages: Record<string, number> }[] = [];
  try {
    for (const [label, url, files] of cases) {
      for (const c of [1, 4]) {
        const t0 = performance.now();
        const samples = await run(url, files, c);
        const wall = performance.now() - t0;
        const stages = Object.fromEntries(STAGES.map((k) => [k, median(samples.map((x) => x.stages[k] ?? 0))]));
        const s = summarize(samples.map((x) => x.ms));
        results.push({ label: `${label}, ${c === 1 ? 'sequential' : '4 concurrent'} (${((N / wall) * 1000).toFixed(1)} req/s)`, s, stages });
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });

  // Baseline in the same run, daemon stopped: raw session.run of the same models and sizes.
  const det = await rawModel('face_det_scrfd_500m_kps.onnx', [1, 3, 480, 640]);
  const rec = await rawModel('face_rec_faceplugin_512d.onnx', [1, 3, 112, 112]);
  const l1 = await rawModel('antispoof_minifasnet_v2_scale2.7_80x80.onnx', [1, 3, 80, 80]);
  const l2 = await rawModel('antispoof_minifasnet_v1se_scale4.0_80x80.onnx', [1, 3, 80, 80]);
  const attr = await rawModel('face_attr_hse_faceres_224.onnx', [1, 224, 224, 3]);
  const perFace = rec.p50 + l1.p50 + l2.p50 + attr.p50;
  const floorDetect = det.p50 + perFace;
  console.log('| request | n | p50 ms | p95 ms | x raw-model floor | ' + STAGES.map((k) => `${k} p50`).join(' | ') + ' |');
  console.log('|---|---|---|---|---|' + STAGES.map(() => '---').join('|') + '|');
  for (const r of results) {
    const floor = r.label.startsWith('/verify') ? 2 * floorDetect : r.label.includes('six') ? det.p50 + 6 * perFace : floorDetect;
    console.log(row(r.label, r.s, `${(r.s.p50 / floor).toFixed(2)} | ${STAGES.map((k) => fmt(r.stages[k]!)).join(' | ')}`));
  }
  console.log('\nBaseline, same run: raw onnxruntime session.run (CPU, main thread, random input)\n');
  console.log('| model | n | p50 ms | p95 ms |');
  console.log('|---|---|---|---|');
  console.log(row('scrfd_500m @ 640x480', det));
  console.log(row('faceplugin_512d @ 112x112', rec));
  console.log(row('MiniFASNetV2 @ 80x80', l1));
  console.log(row('MiniFASNetV1SE @ 80x80', l2));
  console.log(row('HSE FaceRes (demographics) @ 224x224', attr));
  console.log(`\nraw-model floor: /detect one face ${fmt(floorDetect)} ms (detector + recognizer + 2 liveness + demographics), /verify ${fmt(2 * floorDetect)} ms`);
}

await main();
