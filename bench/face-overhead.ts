/**
 * Where one /detect's time goes besides the models, in-process (no HTTP): the face service as
 * the daemon builds it (inference pool, the face module's session tuning, demographics off),
 * against raw onnxruntime sessions of the same models and input sizes on this thread, in
 * blocks interleaved with the service's so that both see the same load. Two raw floors: the
 * one bench/face.ts uses (onnxruntime's default threads and spinning), and one opened exactly
 * as the daemon opens each session (createSession: its intra-op threads, spinning off). Last,
 * the detector input's fill (image-feed.ts) against the byte-by-byte loop it replaced.
 *
 *   node --import tsx bench/face-overhead.ts [--n 60]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import pino from 'pino';
import sharp from 'sharp';
import { loadConfig } from '../src/config/load.js';
import { packageRoot } from '../src/core/package-root.js';
import { decodeImage } from '../src/core/image-decode.js';
import { emptyTimings, FaceService } from '../src/modules/face/face-service.js';
import { detectorCanvas } from '../src/modules/face/detector-input.js';
import { SCRFD_LAYOUT } from '../src/modules/face/scrfd-decoder.js';
import { channelStats, fillImageTensor, type ImageFeed } from '../src/runtime/image-feed.js';
import { rewriteForCpu } from '../src/runtime/cpu-graph-rewrite.js';
import { resolveProfile } from '../src/runtime/hw-profile.js';
import { ModelRegistry } from '../src/runtime/model-registry.js';
import { createSession } from '../src/runtime/onnx-session.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const ROOT = packageRoot();
const N = Number(process.argv[process.argv.indexOf('--n') + 1]) || 60;
const BLOCK = 5;
const MODELS: [string, string, number[]][] = [
  ['det', 'face_det_scrfd_500m_kps.onnx', [1, 3, 480, 640]],
  ['rec', 'face_rec_faceplugin_512d.onnx', [1, 3, 112, 112]],
  ['l1', 'antispoof_minifasnet_v2_scale2.7_80x80.onnx', [1, 3, 80, 80]],
  ['l2', 'antispoof_minifasnet_v1se_scale4.0_80x80.onnx', [1, 3, 80, 80]],
];

type Raw = { key: string; session: ort.InferenceSession; feeds: Record<string, ort.Tensor> }[];

function feedsFor(session: ort.InferenceSession, dims: number[]): Record<string, ort.Tensor> {
  const size = dims.reduce((a, b) => a * b, 1);
  return {
    [session.inputNames[0]!]: new ort.Tensor(
      'float32',
      Float32Array.from({ length: size }, () => Math.random() * 2 - 1),
      dims,
    ),
  };
}

async function rawBenchFloor(): Promise<Raw> {
  const out: Raw = [];
  for (const [key, file, dims] of MODELS) {
    const session = await ort.InferenceSession.create(rewriteForCpu(readFileSync(join(ROOT, 'models', file))).bytes, { graphOptimizationLevel: 'all', logSeverityLevel: 3 });
    out.push({ key, session, feeds: feedsFor(session, dims) });
  }
  return out;
}

async function rawDaemonFloor(cores: number, workerThreads: number): Promise<Raw> {
  const out: Raw = [];
  for (const [key, file, dims] of MODELS) {
    const { session } = await createSession(join(ROOT, 'models', file), { profile: resolveProfile('x86-cpu'), deviceId: -1, intraOpThreads: key === 'det' ? cores : workerThreads });
    out.push({ key, session, feeds: feedsFor(session, dims) });
  }
  return out;
}

async function runRaw(raw: Raw, times: Record<string, number[]>, prefix: string): Promise<void> {
  for (const { key, session, feeds } of raw) {
    const t0 = performance.now();
    await session.run(feeds);
    (times[`${prefix}.${key}`] ??= []).push(performance.now() - t0);
  }
}

/** The fill as it was before image-feed.ts read words: one byte at a time. */
function fillByBytes(feed: ImageFeed, out: Float32Array): void {
  const [, , H, W] = feed.dims;
  const plane = W * H;
  const { mean, std } = channelStats(feed, 0);
  const table = new Float32Array(256);
  for (let v = 0; v < 256; v++) table[v] = (v - mean) / std;
  const { rgb: data, width, height } = feed;
  for (let y = 0; y < height; y++) {
    let src = y * width * 3;
    let dst = y * W;
    for (let x = 0; x < width; x++, src += 3, dst++) {
      out[dst] = table[data[src]!]!;
      out[dst + plane] = table[data[src + 1]!]!;
      out[dst + 2 * plane] = table[data[src + 2]!]!;
    }
  }
}

function fillTimes(rgb: Uint8Array): { words: number; bytes: number } {
  const feed: ImageFeed = { name: 'input', rgb, width: 640, height: 480, dims: [1, 3, 480, 640], offsetX: 0, offsetY: 0, ...SCRFD_LAYOUT };
  const out = new Float32Array(3 * 640 * 480);
  const words: number[] = [];
  const bytes: number[] = [];
  for (let i = 0; i < 200; i++) {
    let t0 = performance.now();
    fillImageTensor(feed, out);
    words.push(performance.now() - t0);
    t0 = performance.now();
    fillByBytes(feed, out);
    bytes.push(performance.now() - t0);
  }
  return { words: Math.min(...words), bytes: Math.min(...bytes) };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-overhead-'));
  const config = loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir }, face: { enable_demographics: false } } });
  const models = new ModelRegistry(config.face.models_dir, resolveProfile('x86-cpu'), config.face.ctx_id, pino({ level: 'silent' }), config.server.inference_workers);
  const face = new FaceService(models, config);
  for (const name of face.activeModels()) await face.openModel(name);
  const jpeg = await sharp(resolve(ROOT, '..', 'shared', 'testdata', 'faces', 'identities', 'fr_barack_obama', 'obama.jpg'))
    .resize(640, 480, { fit: 'cover', position: 'top' })
    .jpeg({ quality: 90 })
    .toBuffer();
  const benchFloor = await rawBenchFloor();
  const daemonFloor = await rawDaemonFloor(models.layout.cores, models.layout.intraOpThreads);
  const times: Record<string, number[]> = {};
  const push = (k: string, v: number) => (times[k] ??= []).push(v);
  const request = async () => {
    const t0 = performance.now();
    const img = await decodeImage(jpeg, { field: 'image', maxPixels: config.server.max_image_pixels });
    const t1 = performance.now();
    // The canvas step alone (a no-op at 640x480: the image is fed at its own size).
    await detectorCanvas(img, { detSize: config.face.det_size });
    const t2 = performance.now();
    const timings = emptyTimings();
    const faces = await face.analyze(img, { timings });
    const t3 = performance.now();
    if (faces.length !== 1) throw new Error(`expected one face, got ${faces.length}`);
    push('decode', t1 - t0);
    push('detector canvas (timed apart)', t2 - t1);
    push('analyze', t3 - t2);
    push('analyze.detect', timings.detect);
    push('analyze.detect_model (pool round trip: input fill in the worker, run, hand-overs)', timings.detect_model);
    push('analyze.after detect', t3 - t2 - timings.detect);
    push('decode+analyze', t1 - t0 + (t3 - t2));
  };
  for (let i = 0; i < 5; i++) {
    await request();
    await runRaw(benchFloor, {}, 'x');
    await runRaw(daemonFloor, {}, 'x');
  }
  for (const k of Object.keys(times)) delete times[k];
  for (let done = 0; done < N; done += BLOCK) {
    for (let i = 0; i < BLOCK; i++) await request();
    for (let i = 0; i < BLOCK; i++) await runRaw(benchFloor, times, 'bench floor');
    for (let i = 0; i < BLOCK; i++) await runRaw(daemonFloor, times, 'daemon-options floor');
  }
  await models.close();
  rmSync(dataDir, { recursive: true, force: true });
  const fill = fillTimes((await decodeImage(jpeg, { field: 'image', maxPixels: config.server.max_image_pixels })).data);
  console.log(machineLine());
  console.log(`n=${N}, blocks of ${BLOCK}; layout: ${JSON.stringify(models.layout)}\n`);
  console.log('| what | p50 ms | p95 ms |');
  console.log('|---|---|---|');
  const p50 = (k: string) => summarize(times[k]!).p50;
  for (const [k, v] of Object.entries(times)) {
    const s = summarize(v);
    console.log(`| ${k} | ${fmt(s.p50)} | ${fmt(s.p95)} |`);
  }
  for (const f of ['bench floor', 'daemon-options floor']) {
    const sum = ['det', 'rec', 'l1', 'l2'].reduce((a, k) => a + p50(`${f}.${k}`), 0);
    console.log(`\n${f}: sum ${fmt(sum)} ms; decode+analyze / floor = ${(p50('decode+analyze') / sum).toFixed(2)}`);
  }
  console.log(`\ndetector input fill, 640x480, minimum of 200 alternated: ${fmt(fill.words)} ms (image-feed.ts) against ${fmt(fill.bytes)} ms byte by byte`);
}

await main();
