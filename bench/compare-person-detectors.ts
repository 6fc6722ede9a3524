/**
 * Another person detector against YOLOX-nano, on the four MOT scenes and the same frames:
 * MoveNet MultiPose Lightning (bench/lib/movenet-multipose.ts: Google, Apache-2.0, boxes and
 * 17 keypoints, at most 6 people a frame). Each detector's boxes are matched to gt.txt at IoU 0.5
 * frame by frame (one-to-one): recall, precision, recall in frames with more than 6 annotated
 * people and of people more than 30 % hidden; then, over the annotated people BOTH detectors
 * found, where each puts the anchor (the counted point) against the annotated bottom centre, in
 * annotated box heights: the box's bottom centre, and for MoveNet also the mean of the ankles it
 * sees (score >= 0.3) and YOLOX's box with its bottom moved to those ankles (anchor refiner).
 * Vertical: the median offset (a bias a constant removes) and the spread around it (median and
 * 90th percentile of |offset - median|); horizontal: median and p90 of |offset|. The refiner
 * counts the ankles lowered by --ankle-offset of YOLOX's box height (default 0.09: the ankles'
 * median offset on the tuning scenes) and YOLOX's own bottom where no ankle is seen. Last, each
 * anchor with the annotated identities (no tracker) counted over the random lines of
 * `eval-tracking --seed N` (same streams), as diagnose-detection's oracle.
 *
 *   node --import tsx bench/compare-person-detectors.ts --seed N [--size 416] [--min 0.2] [--scene X] [--ankle-offset 0.09] [--time 40]
 *
 * --size: MoveNet's input long side (the frame delivered into that box, padded to multiples of
 * 32); --time N: time both detectors on the first N frames of TUD-Stadtmitte in the same run.
 * MoveNet's detections are cached per video and size under bench/out/cache (first run: about a
 * second a frame, most of it the post-processing on TFJS's pure-JavaScript backend).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { linearAssignment } from '../src/modules/person/linear-assignment.js';
import { readMot, type MotBox } from './lib/mot-metrics.js';
import { iou, occlusion } from './lib/annotated-overlap.js';
import { truthCounts } from './lib/line-counts.js';
import { detectAll, frames } from './lib/detection-cache.js';
import { randomLines, randomZones } from './lib/random-rules.js';
import { seededRandom } from './lib/seeded.js';
import { placeBoxes, placeScene, SCENES } from './lib/scenes.js';
import { pct, scoreLines } from './lib/count-metrics.js';
import { openSceneBench } from './lib/scene-bench.js';
import { machineLine, summarize } from './lib/stats.js';
import { sceneHash } from './lib/scene-hash.js';
import { detectPoses, openMoveNet, posesForVideo, type Pose } from './lib/movenet-multipose.js';

const { values: opts } = parseArgs({
  options: {
    seed: { type: 'string' },
    size: { type: 'string', default: '416' },
    min: { type: 'string', default: '0.2' },
    scene: { type: 'string' },
    time: { type: 'string', default: '0' },
    'ankle-offset': { type: 'string', default: '0.09' },
  },
});
if (!opts.seed) throw new Error('--seed N: the eval-tracking seed whose lines to count');
const seed = Number(opts.seed);
const size = Number(opts.size);
const minPose = Number(opts.min);
const YOLOX_MIN = 0.5; // ByteTrack's high threshold: the boxes that start and carry tracks
const ANKLE_MIN = 0.3;
const ankleOffset = Number(opts['ankle-offset']);
const { testdata: TESTDATA, cache: CACHE, registry, detector, modelFile, ff } = await openSceneBench(416);
const movenet = await openMoveNet(join(CACHE, '..', 'movenet'));

interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}
type Anchor = { x: number; y: number } | null;

console.log(machineLine());
console.log(`seed ${seed} | YOLOX-nano 416 (score >= ${YOLOX_MIN}) against MoveNet MultiPose at ${size} (score >= ${minPose}), IoU 0.5 to gt.txt`);
const detRows: string[] = [];
const anchorRows: string[] = [];
const countRows: string[] = [];
for (const scene of SCENES.filter((s) => !opts.scene || s.name === opts.scene)) {
  const place = placeScene(ff.path, TESTDATA, scene, false, CACHE);
  const { frames: yolox } = await detectAll(ff, detector, modelFile, place.file, CACHE, 0.1);
  const { poses, frameW } = await posesForVideo(movenet, ff, place.file, size, CACHE);
  const gt = placeBoxes(readMot(join(TESTDATA, scene.gt)).boxes, place, scene, true);
  const gtByFrame = new Map<number, MotBox[]>();
  for (const b of gt) gtByFrame.set(b.frame, [...(gtByFrame.get(b.frame) ?? []), b]);

  const stats = { yolox: newStats(), movenet: newStats() };
  const offsets: Record<string, { dy: number[]; dx: number[] }> = {};
  const oracle: Record<string, MotBox[]> = {};
  /** `a`: the anchor (offsets are taken over these); `fallback`: what is counted where there is none (no ankle seen). */
  const add = (name: string, g: MotBox, frame: number, a: Anchor, box: Box, fallback: Anchor = null): void => {
    if (a) {
      (offsets[name] ??= { dy: [], dx: [] }).dy.push((a.y - (g.y + g.h)) / g.h);
      offsets[name].dx.push((a.x - (g.x + g.w / 2)) / g.h);
    }
    const c = a ?? fallback;
    // The counted box: the detector's, stood on the anchor (truthCounts counts the bottom centre).
    if (c) (oracle[name] ??= []).push({ frame, id: g.id, x: c.x - (box.x2 - box.x1) / 2, y: box.y1, w: box.x2 - box.x1, h: Math.max(1, c.y - box.y1) });
  };
  for (let i = 0; i < Math.min(yolox.length, poses.length); i++) {
    const frame = i + 1;
    const gts = gtByFrame.get(frame) ?? [];
    const sy = scene.width / yolox[i]!.width;
    const y = yolox[i]!.dets.filter((d) => d.score >= YOLOX_MIN).map((d) => scaled(d, sy));
    const sm = scene.width / frameW;
    const m = poses[i]!.filter((p) => p.score >= minPose).map((p) => ({ ...scaled(p, sm), pose: p, s: sm }));
    const my = match(gts, y, stats.yolox);
    const mm = match(gts, m, stats.movenet);
    const crowded = gts.length > 6;
    gts.forEach((g, r) => {
      const hidden = occlusion(g, gts) > 0.3;
      for (const [st, hit] of [
        [stats.yolox, my.has(r)],
        [stats.movenet, mm.has(r)],
      ] as const) {
        if (crowded) st.crowd.n++;
        if (crowded && hit) st.crowd.hit++;
        if (hidden) st.hidden.n++;
        if (hidden && hit) st.hidden.hit++;
      }
      const yb = my.get(r);
      const mb = mm.get(r);
      if (!yb || !mb) return;
      const ankles = ankleAnchor(mb.pose, mb.s);
      add('YOLOX box', g, frame, bottomCentre(yb), yb);
      add('MoveNet box', g, frame, bottomCentre(mb), mb);
      add('MoveNet ankles', g, frame, ankles, mb, bottomCentre(mb));
      // The refiner as a camera could run it: the ankles lie above the sole by a near-constant
      // share of the height (--ankle-offset, of the detected box's height), else YOLOX's bottom.
      const lift = ankleOffset * (yb.y2 - yb.y1);
      add(`YOLOX box, bottom at the ankles + ${ankleOffset} h`, g, frame, ankles ? { x: (yb.x1 + yb.x2) / 2, y: ankles.y + lift } : null, yb, bottomCentre(yb));
    });
  }
  const row = (name: string, st: Stats): string =>
    `| ${scene.name} | ${name} | ${gt.length} | ${pct(st.tp, gt.length)} | ${pct(st.tp, st.dets)} | ${pct(st.crowd.hit, st.crowd.n)} (${st.crowd.n}) | ${pct(st.hidden.hit, st.hidden.n)} (${st.hidden.n}) | ${f3(quantile(st.matchedScores, 0.5))} |`;
  detRows.push(row('YOLOX-nano 416', stats.yolox), row(`MoveNet MultiPose ${size}`, stats.movenet));
  const both = offsets['YOLOX box']?.dy.length ?? 0;
  for (const [name, o] of Object.entries(offsets)) {
    const bias = quantile(o.dy, 0.5);
    const spread = o.dy.map((v) => Math.abs(v - bias));
    const adx = o.dx.map(Math.abs);
    anchorRows.push(
      `| ${scene.name} | ${name} | ${o.dy.length} of ${both} | ${f2(bias)} | ${f3(quantile(spread, 0.5))} / ${f3(quantile(spread, 0.9))} | ${f3(quantile(adx, 0.5))} / ${f3(quantile(adx, 0.9))} |`,
    );
  }
  const region = { x: 0, y: 0, w: 1, h: 1 };
  const rand = seededRandom(seed ^ sceneHash(scene.name));
  const lines = randomLines(rand, 100, region);
  const zones = randomZones(rand, 30, region);
  const truth = truthCounts(gt, lines, zones, scene.width, scene.height);
  const cell = (name: string, boxes: MotBox[]): string => {
    const L = scoreLines(truth.lines, truthCounts(boxes, lines, zones, scene.width, scene.height).lines);
    return `${name}: ${pct(L.absError, L.truth)} (${L.absError - L.extra} missed + ${L.extra} extra)`;
  };
  const cells = Object.entries(oracle).map(([name, boxes]) => cell(name, boxes));
  const truthN = scoreLines(truth.lines, truth.lines).truth;
  countRows.push(`| ${scene.name} | ${truthN} | ${cells.join(' | ')} |`);
}
console.log('\nDetection against gt.txt:');
console.log('| scene | detector | gt boxes | recall | precision | recall, frames with > 6 people (boxes) | recall, > 30 % hidden (boxes) | score of matched boxes, p50 |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of detRows) console.log(r);
console.log('\nAnchor minus the annotated bottom centre, in annotated heights, on the people both detectors found:');
console.log('| scene | anchor | people-frames (with that anchor) | vertical: median (bias) | vertical: |off - bias| p50 / p90 | horizontal: |off| p50 / p90 |');
console.log('|---|---|---|---|---|---|');
for (const r of anchorRows) console.log(r);
console.log('\nLine error with the annotated identities (no tracker), only the people both detectors found, each anchor (missed + extra); MoveNet ankles: its box bottom where no ankle is seen:');
for (const r of countRows) console.log(r);

if (Number(opts.time) > 0) {
  const scene = SCENES.find((s) => s.name === 'TUD-Stadtmitte')!;
  const n = Number(opts.time);
  const ty: number[] = [];
  const tm: number[] = [];
  const tt: number[] = [];
  let i = 0;
  for await (const f of frames(ff, join(TESTDATA, scene.video), 416)) {
    const t0 = performance.now();
    await detector.detect(f, 0.1);
    ty.push(performance.now() - t0);
    await detectPoses(movenet, f);
    tm.push(movenet.lastMs[0]);
    tt.push(movenet.lastMs[1]);
    if (++i >= n) break;
  }
  const s = (v: number[]): string => `${summarize(v.slice(3)).p50.toFixed(1)} ms`;
  console.log(
    `\nCost per frame, same run, TUD-Stadtmitte frames 4-${n} at 416 (p50): YOLOX-nano (the daemon's worker, one thread) ${s(ty)}; MoveNet network (onnxruntime, one thread, in-process) ${s(tm)}; MoveNet post-processing on TFJS ${s(tt)}`,
  );
}
await registry.close();

interface Stats {
  tp: number;
  /** Scores of the detections that matched someone (what ByteTrack's fused cost multiplies the overlap by). */
  matchedScores: number[];
  dets: number;
  crowd: { n: number; hit: number };
  hidden: { n: number; hit: number };
}
function newStats(): Stats {
  return { tp: 0, matchedScores: [], dets: 0, crowd: { n: 0, hit: 0 }, hidden: { n: 0, hit: 0 } };
}

function scaled<T extends Box>(d: T, s: number): T {
  return { ...d, x1: d.x1 * s, y1: d.y1 * s, x2: d.x2 * s, y2: d.y2 * s };
}

function bottomCentre(b: Box): Anchor {
  return { x: (b.x1 + b.x2) / 2, y: b.y2 };
}

/** The mean of the ankles MoveNet sees (score >= 0.3), in the scene's pixels. */
function ankleAnchor(p: Pose, s: number): Anchor {
  const seen = [p.keypoints[15]!, p.keypoints[16]!].filter((k) => k.score >= ANKLE_MIN);
  if (!seen.length) return null;
  return { x: (s * seen.reduce((a, k) => a + k.x, 0)) / seen.length, y: (s * seen.reduce((a, k) => a + k.y, 0)) / seen.length };
}

/** One-to-one IoU >= 0.5 matching of detections to the frame's annotated people: gt index -> detection. */
function match<T extends Box & { score: number }>(gts: MotBox[], dets: T[], st: Stats): Map<number, T> {
  st.dets += dets.length;
  const cost = new Float64Array(gts.length * dets.length);
  for (let r = 0; r < gts.length; r++) for (let c = 0; c < dets.length; c++) cost[r * dets.length + c] = 1 - iou(gts[r]!, dets[c]!);
  const out = new Map<number, T>();
  for (const [r, c] of linearAssignment(cost, gts.length, dets.length, 0.5).matches) out.set(r, dets[c]!);
  st.tp += out.size;
  for (const d of out.values()) st.matchedScores.push((d as Box & { score: number }).score);
  return out;
}

function quantile(v: number[], p: number): number {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
}
function f2(v: number): string {
  return (v >= 0 ? '+' : '') + v.toFixed(3);
}
function f3(v: number): string {
  return v.toFixed(3);
}
