/**
 * Tracking and counting accuracy on the three MOT sequences of ../shared/testdata/video:
 * MOTA / IDF1 of Vigil's person tracks against gt.txt, and in/out counts of a few lines
 * per scene, Vigil's (counted online by the daemon's CameraCounting, as a camera would)
 * against the same lines over the ground-truth tracks.
 *
 *   node --import tsx bench/eval-tracking.ts [--seq PETS09-S2L1] [--high 0.5] [--buffer 30]
 *
 * Frames come through the camera path's own argv builder and PPM parser (every frame,
 * not real time) and the YOLOX detector and ByteTrack the daemon runs.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ModelRegistry } from '../src/runtime/model-registry.js';
import { readProfile } from '../src/runtime/hw-profile.js';
import { packageRoot } from '../src/core/package-root.js';
import { PERSON_MODEL } from '../src/modules/person/person-service.js';
import { YoloxPersonDetector } from '../src/modules/person/yolox-detector.js';
import { ByteTracker, defaultTrackerSettings } from '../src/modules/person/bytetrack.js';
import { ffmpegPath, probeFfmpeg } from '../src/modules/video/ffmpeg-binary.js';
import { fileStreamArgs } from './lib/file-stream.js';
import { PpmStreamParser, type RawFrame } from '../src/modules/video/ppm-stream.js';
import { CameraCounting } from '../src/modules/video/counting/camera-counting.js';
import { makeLine } from '../src/modules/video/counting/rules.js';
import { dropIgnored, evaluateMot, readMot, type MotBox } from './lib/mot-metrics.js';
import { countLines, type LineSpec } from './lib/line-counts.js';
import { machineLine } from './lib/stats.js';

const TESTDATA = join(packageRoot(), '..', 'shared', 'testdata', 'video');

interface Sequence {
  name: string;
  video: string;
  width: number;
  height: number;
  lines: LineSpec[];
}

const v = (name: string, x: number): LineSpec => ({ name, points: [[x, 0], [x, 1]] });
const h = (name: string, y: number): LineSpec => ({ name, points: [[0, y], [1, y]] });

/** Lines chosen where the ground-truth tracks cross them (several crossings each). */
const SEQUENCES: Sequence[] = [
  { name: 'PETS09-S2L1', video: 'PETS09-S2L1/vtest.avi', width: 768, height: 576, lines: [v('x0.4', 0.4), v('x0.6', 0.6), h('y0.5', 0.5)] },
  { name: 'TUD-Campus', video: 'TUD-Campus/TUD-Campus.mp4', width: 640, height: 480, lines: [v('x0.4', 0.4), v('x0.5', 0.5), v('x0.6', 0.6)] },
  { name: 'TUD-Stadtmitte', video: 'TUD-Stadtmitte/TUD-Stadtmitte.mp4', width: 640, height: 480, lines: [v('x0.5', 0.5), v('x0.6', 0.6), v('x0.75', 0.75)] },
];

const { values: opts } = parseArgs({
  options: { seq: { type: 'string' }, high: { type: 'string' }, buffer: { type: 'string' } },
});
const high = opts.high ? Number(opts.high) : 0.5;
const buffer = opts.buffer ? Number(opts.buffer) : 30;

const registry = new ModelRegistry(join(packageRoot(), 'models'), readProfile('x86-cpu'), -1, pino({ level: 'silent' }));
// As the daemon loads it: in the registry's inference worker, person.detector_threads 1.
const model = await registry.load(PERSON_MODEL, { intraOpThreads: 1 });
if (!model) throw new Error(`person detector unavailable: ${registry.status(PERSON_MODEL)?.reason}`);
const detector = new YoloxPersonDetector(model);
const ff = await probeFfmpeg(ffmpegPath(readProfile('x86-cpu')));

/** Every frame of a file through the camera argv and the PPM parser, with backpressure. */
async function* frames(file: string): AsyncGenerator<RawFrame> {
  const args = fileStreamArgs(ff, file, detector.inputSize);
  const child = spawn(ff.path, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  const queue: RawFrame[] = [];
  const parser = new PpmStreamParser((f) => queue.push(f));
  for await (const chunk of child.stdout) {
    parser.push(chunk as Buffer);
    while (queue.length) yield queue.shift()!;
  }
}

console.log(machineLine());
console.log(`detector ${PERSON_MODEL} 416x416 letterbox, ByteTrack high threshold ${high}, track buffer ${buffer} frames, IoU 0.5`);
console.log('');
const motRows: string[] = [];
const lineRows: string[] = [];
let allAbs = 0;
let allTruth = 0;
for (const seq of SEQUENCES.filter((s) => !opts.seq || s.name === opts.seq)) {
  const tracker = new ByteTracker(defaultTrackerSettings(high, buffer));
  const counting = new CameraCounting();
  for (const l of seq.lines) counting.setRule(makeLine({ rule_id: l.name, points: l.points }));
  const hyp: MotBox[] = [];
  let n = 0;
  const t0 = performance.now();
  for await (const f of frames(join(TESTDATA, seq.video))) {
    n++;
    const s = seq.width / f.width;
    const { tracks, removed } = tracker.update(await detector.detect(f, 0.1));
    counting.process(tracks, removed, f.width, f.height);
    for (const t of tracks) hyp.push({ frame: n, id: t.trackId, x: t.x1 * s, y: t.y1 * s, w: (t.x2 - t.x1) * s, h: (t.y2 - t.y1) * s });
  }
  const ms = (performance.now() - t0) / n;
  const gt = readMot(join(TESTDATA, seq.name, 'gt.txt'));
  const r = evaluateMot(gt.boxes, dropIgnored(hyp, gt.ignore));
  motRows.push(
    `| ${seq.name} | ${n} | ${r.mota.toFixed(3)} | ${r.idf1.toFixed(3)} | ${r.motp.toFixed(3)} | ${r.precision.toFixed(3)} | ${r.recall.toFixed(3)} | ${r.fp} | ${r.fn} | ${r.idsw} | ${r.gtIds} / ${r.hypIds} | ${ms.toFixed(0)} |`,
  );
  const truth = countLines(gt.boxes, seq.lines, seq.width, seq.height);
  let abs = 0;
  let tot = 0;
  for (const l of seq.lines) {
    const g = truth[l.name]!;
    const got = counting.countsOf(l.name) as { in: number; out: number };
    const err = Math.abs(got.in - g.in) + Math.abs(got.out - g.out);
    abs += err;
    tot += g.in + g.out;
    lineRows.push(`| ${seq.name} | ${l.name} | ${g.in} / ${g.out} | ${got.in} / ${got.out} | ${err} | ${g.in + g.out > 0 ? ((100 * err) / (g.in + g.out)).toFixed(1) : '-'}% |`);
  }
  lineRows.push(`| ${seq.name} | all lines | | | ${abs} | ${((100 * abs) / Math.max(1, tot)).toFixed(1)}% |`);
  allAbs += abs;
  allTruth += tot;
}
console.log('| sequence | frames | MOTA | IDF1 | MOTP (IoU) | precision | recall | FP | FN | ID sw | ids gt / Vigil | ms/frame |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of motRows) console.log(r);
console.log('');
console.log('| sequence | line | ground truth in / out | Vigil in / out | abs. error | error |');
console.log('|---|---|---|---|---|---|');
for (const r of lineRows) console.log(r);
console.log(`| all | all lines | | | ${allAbs} | ${((100 * allAbs) / Math.max(1, allTruth)).toFixed(1)}% |`);
await registry.close();
