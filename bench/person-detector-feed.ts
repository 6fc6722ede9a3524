/**
 * What a camera frame costs the main thread on its way to the person detector: the frame's
 * bytes posted to the inference worker, which fills YOLOX's input there (letterboxFeed, the
 * shipped path), against the main-thread fill of 1.2 MB of floats posted to the worker that it
 * replaced (kept here as the baseline). Frames of TUD-Stadtmitte scaled as the camera argv
 * scales them, three in flight as three cameras would have them, in alternating blocks; per
 * frame: main-thread busy time (event-loop utilisation) and wall time.
 *
 *   node --import tsx bench/person-detector-feed.ts [--frames 40] [--rounds 16]
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import pino from 'pino';
import { packageRoot } from '../src/core/package-root.js';
import { PERSON_MODEL } from '../src/modules/person/person-service.js';
import { decodePersons, YoloxPersonDetector, YOLOX_STRIDE, type RgbFrame } from '../src/modules/person/yolox-detector.js';
import { parseHeader } from '../src/modules/video/ppm-stream.js';
import { readProfile } from '../src/runtime/hw-profile.js';
import { floatFeed } from '../src/runtime/inference-worker.js';
import { ModelRegistry } from '../src/runtime/model-registry.js';
import { machineLine, median } from './lib/stats.js';

const { values } = parseArgs({ options: { frames: { type: 'string', default: '40' }, rounds: { type: 'string', default: '16' } } });
const FRAMES = Number(values.frames);
const ROUNDS = Number(values.rounds);
const IN_FLIGHT = 3;

/** The main-thread fill the shipped path replaced: BGR planes, raw 0..255, padded with 114. */
function fillOnMainThread(frame: RgbFrame, inW: number, inH: number): Float32Array {
  const out = new Float32Array(3 * inW * inH).fill(114);
  const plane = inW * inH;
  for (let y = 0; y < frame.height; y++) {
    for (let x = 0, src = y * frame.width * 3, dst = y * inW; x < frame.width; x++, src += 3, dst++) {
      out[dst] = frame.data[src + 2]!;
      out[plane + dst] = frame.data[src + 1]!;
      out[2 * plane + dst] = frame.data[src]!;
    }
  }
  return out;
}

const video = join(packageRoot(), '..', 'shared', 'testdata', 'video', 'TUD-Stadtmitte', 'TUD-Stadtmitte.mp4');
const ppm = execFileSync(
  ffmpeg.path,
  ['-v', 'error', '-i', video, '-vf', 'scale=w=416:h=416:force_original_aspect_ratio=decrease:flags=area', '-frames:v', String(FRAMES), '-f', 'image2pipe', '-c:v', 'ppm', '-'],
  { maxBuffer: 1 << 30 },
);
const frames: RgbFrame[] = [];
for (let o = 0; o < ppm.length;) {
  const h = parseHeader(ppm.subarray(o));
  if (h === 'incomplete') break;
  const n = h.width * h.height * 3;
  frames.push({ data: Buffer.from(ppm.subarray(o + h.length, o + h.length + n)), width: h.width, height: h.height });
  o += h.length + n;
}

// One worker, as a camera's detections all go through the person detector's session.
const registry = new ModelRegistry(join(packageRoot(), 'models'), readProfile('x86-cpu'), -1, pino({ level: 'silent' }), 1);
const model = await registry.load(PERSON_MODEL, { freeInputDims: true });
if (!model) throw new Error(`${PERSON_MODEL}: ${registry.status(PERSON_MODEL)?.reason}`);
const detector = new YoloxPersonDetector(model, { longSide: 416 });
const round32 = (v: number) => Math.ceil(v / YOLOX_STRIDE) * YOLOX_STRIDE;

const paths = {
  'bytes to the worker (shipped)': (f: RgbFrame) => detector.detect(f, 0.1),
  'floats filled on the main thread (before)': async (f: RgbFrame) => {
    const inW = round32(f.width);
    const inH = round32(f.height);
    const out = await model.runner.run([floatFeed(model.entry.inputs[0]?.name ?? 'images', fillOnMainThread(f, inW, inH), [1, 3, inH, inW])]);
    return decodePersons(out[model.runner.outputNames[0]!]!.data as Float32Array, inW, inH, 1, f.width, f.height, 0.1);
  },
};
const [shipped, before] = Object.values(paths);
const same = JSON.stringify(await shipped!(frames[0]!)) === JSON.stringify(await before!(frames[0]!));

const busy: Record<string, number[]> = {};
const wall: Record<string, number[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, detect] of Object.entries(paths)) {
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    for (let i = 0; i < frames.length; i += IN_FLIGHT) await Promise.all(frames.slice(i, i + IN_FLIGHT).map(detect));
    const elu = performance.eventLoopUtilization(elu0);
    (busy[name] ??= []).push(elu.active / frames.length);
    (wall[name] ??= []).push((performance.now() - t0) / frames.length);
  }
}
await registry.close();

console.log(machineLine());
console.log(`${frames.length} frames ${frames[0]!.width}x${frames[0]!.height}, ${IN_FLIGHT} in flight, ${ROUNDS} alternating rounds; same detections: ${same}`);
console.log('');
console.log('| path | main-thread busy ms a frame (median of rounds) | wall ms a frame |');
console.log('|---|---|---|');
for (const name of Object.keys(paths)) console.log(`| ${name} | ${median(busy[name]!).toFixed(3)} | ${median(wall[name]!).toFixed(2)} |`);
const [a, b] = Object.keys(paths);
console.log('');
console.log(`ratio shipped / before: main-thread ${(median(busy[a!]!) / median(busy[b!]!)).toFixed(2)}, wall ${(median(wall[a!]!) / median(wall[b!]!)).toFixed(2)}`);
