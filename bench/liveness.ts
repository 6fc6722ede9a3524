// p50/p95 of one active-liveness frame submission (POST /api/v1/liveness/sessions/{id}/frame
// through app.inject: multipart, JPEG decode, face service (detection, embedding, passive
// liveness), dense landmarks + blendshapes, the judge), with the model time measured in the
// same run from the route's Server-Timing header and a bare loop of the same models in the same
// inference worker.
//   node --import tsx bench/liveness.ts [--frames 150] [--order TURN_LEFT,LOOK_UP,...]
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { testApp } from '../test/helpers/app.js';
import { multipart } from '../test/helpers/multipart.js';
import type { ChallengeType } from '../src/modules/liveness/challenges.js';
import { clipFrames, scriptedDraw } from '../test/liveness/frames.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const { values } = parseArgs({ options: { frames: { type: 'string', default: '150' }, order: { type: 'string' } } });
const N = Number(values.frames);

console.log(machineLine());
// 120 consecutive frames of Lin-Manuel Miranda facing the camera, re-encoded as a camera would send them.
const indices = Array.from({ length: 120 }, (_, i) => 90 + i);
const pngs = clipFrames(indices);
const jpegs = await Promise.all(indices.map((n) => sharp(pngs.get(n)!).jpeg({ quality: 90 }).toBuffer()));
console.log(`frames: ${jpegs.length} clip frames 640x360, JPEG q90 (${Math.round(jpegs[0]!.length / 1024)} KiB each)`);

const t = await testApp({ liveness: { abuse_max_sessions: 0, abuse_max_failures: 0 } });
const app = t.app;
// --order TURN_LEFT,SMILE,...: every session asks the seven challenges in this order, so two builds
// judge the same kinds of frames (the random draw decides which kind a whole run mostly judges).
const order = values.order ? (values.order.split(',') as ChallengeType[]) : null;

let session = '';
async function newSession(): Promise<void> {
  if (order) app.liveness.deps.random = scriptedDraw(order);
  const r = await app.inject({ method: 'POST', url: '/api/v1/liveness/sessions?num_challenges=7&timeout_seconds=60' });
  session = r.json().session_id;
}

const stageNames = ['decode', 'face', 'face_detect_model', 'face_embed', 'face_liveness', 'measure', 'measure_model'] as const;
type Stage = (typeof stageNames)[number];
const stages: Record<Stage, number[]> = Object.fromEntries(stageNames.map((s) => [s, []])) as unknown as Record<Stage, number[]>;
let k = 0;
let ended = 0;
/** Whole-request times, and the process's CPU time, by the kind of challenge the frame was judged against. */
const byKind = { head: [] as number[], expression: [] as number[] };
const cpuByKind = { head: [] as number[], expression: [] as number[] };

/** CPU time of the whole process (event loop, inference workers, libvips), ms, since `from`. */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
};
const frameCpu: number[] = [];

async function submit(record: boolean): Promise<number> {
  const body = multipart([{ name: 'image', file: jpegs[k++ % jpegs.length]!, filename: 'f.jpg', contentType: 'image/jpeg' }]);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await app.inject({ method: 'POST', url: `/api/v1/liveness/sessions/${session}/frame`, payload: body.payload, headers: body.headers });
  const ms = performance.now() - t0;
  const cpu = cpuMs(c0);
  if (r.statusCode === 409) {
    // The session timed out or expired (a very slow box): start another and send again.
    ended++;
    await newSession();
    return submit(record);
  }
  if (r.statusCode !== 200) throw new Error(`frame answered ${r.statusCode}: ${r.body}`);
  if (record) {
    frameCpu.push(cpu);
    const kind = ['BLINK', 'SMILE', 'OPEN_MOUTH'].includes(r.json().challenge_type) ? 'expression' : 'head';
    byKind[kind].push(ms);
    cpuByKind[kind].push(cpu);
    for (const part of String(r.headers['server-timing']).split(', ')) {
      const [name, dur] = part.split(';dur=') as [Stage, string];
      stages[name]?.push(Number(dur));
    }
  }
  if (r.json().state !== 'in_progress') {
    ended++;
    await newSession();
  }
  return ms;
}

// The same six models alone, on zero inputs of the shapes a frame uses, in the same inference
// worker. One bare pass runs after every frame, so both see the same load on a shared box.
const BARE: [string, string, 'float32' | 'float16', number[]][] = [
  ['detector 640x384', app.face.detectorName, 'float32', [1, 3, 384, 640]],
  ['recognizer', app.face.recognizerName, 'float32', [1, 3, 112, 112]],
  ['minifasnet v2', 'antispoof_minifasnet_v2', 'float32', [1, 3, 80, 80]],
  ['minifasnet v1se', 'antispoof_minifasnet_v1se', 'float32', [1, 3, 80, 80]],
  ['landmarks 256', 'face_landmarks_v2_478', 'float16', [1, 3, 256, 256]],
  ['blendshapes', 'face_blendshapes', 'float32', [1, 146, 2]],
];
const bareMs: number[][] = BARE.map(() => []);
const bareSum: number[] = [];
const bareCpu: number[] = [];
async function barePass(record: boolean): Promise<void> {
  let sum = 0;
  const c0 = process.cpuUsage();
  for (const [i, [, name, type, dims]] of BARE.entries()) {
    const m = app.face.model(name);
    const size = dims.reduce((a, b) => a * b, 1);
    const data = type === 'float16' ? new Uint16Array(size) : new Float32Array(size);
    const t0 = performance.now();
    await m.run([{ name: m.inputNames[0]!, type, data, dims }]);
    const ms = performance.now() - t0;
    sum += ms;
    if (record) bareMs[i]!.push(ms);
  }
  if (record) {
    bareSum.push(sum);
    bareCpu.push(cpuMs(c0));
  }
}

await newSession();
for (let i = 0; i < 10; i++) {
  await submit(false);
  await barePass(false);
}
const total: number[] = [];
for (let i = 0; i < N; i++) {
  total.push(await submit(true));
  await barePass(true);
}
await t.close();

const s = summarize(total);
const p50 = (xs: number[]) => summarize(xs).p50;
console.log(`\nframe submission, ${N} frames (${ended} sessions ended and were replaced)`);
console.log('| stage | p50 ms | p95 ms |');
console.log('|---|---|---|');
console.log(`| whole request (inject) | ${fmt(s.p50)} | ${fmt(s.p95)} |`);
for (const [kind, xs] of Object.entries(byKind))
  if (xs.length) console.log(`| whole request, judged against ${kind === 'head' ? 'a turn or look' : 'an expression'} (${xs.length} frames) | ${fmt(p50(xs))} | ${fmt(summarize(xs).p95)} |`);
for (const st of stageNames) console.log(`| ${st} | ${fmt(p50(stages[st]))} | ${fmt(summarize(stages[st]).p95)} |`);
const modelInRun = stages.face_detect_model.map((d, i) => d + stages.measure_model[i]!);
console.log(`\nmodel runs inside the requests (detector + landmarks + blendshapes): p50 ${fmt(p50(modelInRun))} ms`);
console.log('bare runs, one pass after each frame (p50 ms): ' + BARE.map(([label], i) => `${label} ${fmt(p50(bareMs[i]!))}`).join(', '));
const b = summarize(bareSum);
console.log(`bare pass of all six models: p50 ${fmt(b.p50)} ms, p95 ${fmt(b.p95)} ms; whole request / bare pass: p50 ${(s.p50 / b.p50).toFixed(2)}`);
// CPU time is what load inflates least: on a shared box it compares builds where wall time cannot.
const kindCpu = Object.entries(cpuByKind)
  .filter(([, xs]) => xs.length > 0)
  .map(([kind, xs]) => `${kind === 'head' ? 'turn or look' : 'expression'} ${fmt(p50(xs))} ms (${(p50(xs) / p50(bareCpu)).toFixed(2)})`)
  .join(', ');
console.log(
  `CPU time of the process per frame: p50 ${fmt(p50(frameCpu))} ms (${kindCpu}); per bare pass: p50 ${fmt(p50(bareCpu))} ms; frame / bare pass: ${(p50(frameCpu) / p50(bareCpu)).toFixed(2)}`,
);
console.log(machineLine());
