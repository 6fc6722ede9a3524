/**
 * How much of the counting error is the detector's: per MOT scene, the detections (the
 * cached ones eval-tracking uses) against gt.txt at IoU 0.5 (recall by box height and by
 * occlusion, precision, where the detected bottom sits against the annotated feet), and
 * the line/zone count error of three oracles on the same random lines as eval-tracking
 * (same seed, same per-scene streams):
 *   - recall only: the annotated boxes, with their ids, only in frames where a detection matched them;
 *   - detection + perfect identities: the matched detected boxes carrying the annotated ids;
 *   - the same with the annotated bottom edge (the detector's box, the annotated feet).
 * What remains between the last oracle and eval-tracking's figure is the tracker's and the
 * counter's share. Occlusion of a ground-truth box is the fraction of it covered by other
 * annotated people standing in front (their box bottom lower in the picture).
 *
 *   node --import tsx bench/diagnose-detection.ts --seed N [--scene X] [--wide] [--tiles N] [--input 416] [--score 0.5]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Detection } from '../src/modules/person/yolox-detector.js';
import { linearAssignment } from '../src/modules/person/linear-assignment.js';
import { readMot, type MotBox } from './lib/mot-metrics.js';
import { iou, occlusion } from './lib/annotated-overlap.js';
import { truthCounts } from './lib/line-counts.js';
import { detectAll } from './lib/detection-cache.js';
import { randomLines, randomZones } from './lib/random-rules.js';
import { seededRandom } from './lib/seeded.js';
import { placeBoxes, placeScene, SCENES } from './lib/scenes.js';
import { pct, scoreLines, scoreZones } from './lib/count-metrics.js';
import { openSceneBench } from './lib/scene-bench.js';
import { machineLine } from './lib/stats.js';
import { sceneHash } from './lib/scene-hash.js';

const { values: opts } = parseArgs({
  options: {
    seed: { type: 'string' },
    lines: { type: 'string', default: '100' },
    zones: { type: 'string', default: '30' },
    scene: { type: 'string' },
    wide: { type: 'boolean', default: false },
    tiles: { type: 'string', default: '1' },
    input: { type: 'string', default: '416' },
    score: { type: 'string', default: '0.5' },
  },
});
if (!opts.seed) throw new Error('--seed N: the eval-tracking seed whose lines to diagnose');
const seed = Number(opts.seed);
const minScore = Number(opts.score);
const { testdata: TESTDATA, cache: CACHE, registry, detector, modelFile, ff } = await openSceneBench(Number(opts.input));

const H_BINS = [0, 50, 100, 200, Infinity];
const OCC_BINS = [0, 0.01, 0.3, 0.6, 1.01];

console.log(machineLine());
console.log(
  `seed ${seed} | detections scored >= ${minScore} against gt.txt at IoU 0.5 | ${opts.wide ? 'scenes in 1920x1080' : 'scenes as recorded'}${opts.tiles !== '1' ? `, ${opts.tiles}x${opts.tiles} tiles` : ''}`,
);
const detRows: string[] = [];
const bottomRows: string[] = [];
const oracleRows: string[] = [];
for (const scene of SCENES.filter((s) => !opts.scene || s.name === opts.scene)) {
  const place = placeScene(ff.path, TESTDATA, scene, opts.wide, CACHE);
  const region = { x: place.ox / place.frameW, y: place.oy / place.frameH, w: scene.width / place.frameW, h: scene.height / place.frameH };
  const rand = seededRandom(seed ^ sceneHash(scene.name));
  const lines = randomLines(rand, Number(opts.lines), region);
  const zones = randomZones(rand, Number(opts.zones), region);
  const { frames } = await detectAll(ff, detector, modelFile, place.file, CACHE, 0.1, Number(opts.tiles));
  const gt = placeBoxes(readMot(join(TESTDATA, scene.gt)).boxes, place, scene, true);
  const byFrame = new Map<number, MotBox[]>();
  for (const b of gt) byFrame.set(b.frame, [...(byFrame.get(b.frame) ?? []), b]);

  const hRecall = H_BINS.slice(1).map(() => ({ n: 0, hit: 0 }));
  const oRecall = OCC_BINS.slice(1).map(() => ({ n: 0, hit: 0 }));
  const bottomByOcc = OCC_BINS.slice(1).map(() => [] as number[]);
  let nDet = 0;
  let tp = 0;
  const recallOnly: MotBox[] = [];
  const detOracle: MotBox[] = [];
  const detGtBottom: MotBox[] = [];
  const topErr: number[] = [];
  const bottomErr: number[] = [];
  frames.forEach((f, i) => {
    const frame = i + 1;
    const s = place.frameW / f.width;
    const dets = f.dets.filter((d) => d.score >= minScore).map((d) => ({ x1: d.x1 * s, y1: d.y1 * s, x2: d.x2 * s, y2: d.y2 * s, score: d.score }));
    const gts = byFrame.get(frame) ?? [];
    nDet += dets.length;
    const cost = new Float64Array(gts.length * dets.length);
    for (let r = 0; r < gts.length; r++) for (let c = 0; c < dets.length; c++) cost[r * dets.length + c] = 1 - iou(gts[r]!, dets[c]!);
    const matched = new Map<number, Detection>();
    for (const [r, c] of linearAssignment(cost, gts.length, dets.length, 0.5).matches) matched.set(r, dets[c]!);
    gts.forEach((g, r) => {
      const occ = occlusion(g, gts);
      const d = matched.get(r);
      const hb = H_BINS.findIndex((lo, k) => g.h >= lo && g.h < H_BINS[k + 1]!);
      const ob = OCC_BINS.findIndex((lo, k) => occ >= lo && occ < OCC_BINS[k + 1]!);
      hRecall[hb]!.n++;
      oRecall[ob]!.n++;
      if (!d) return;
      tp++;
      hRecall[hb]!.hit++;
      oRecall[ob]!.hit++;
      bottomByOcc[ob]!.push((d.y2 - (g.y + g.h)) / g.h);
      topErr.push((d.y1 - g.y) / g.h);
      bottomErr.push((d.y2 - (g.y + g.h)) / g.h);
      recallOnly.push(g);
      detOracle.push({ frame, id: g.id, x: d.x1, y: d.y1, w: d.x2 - d.x1, h: d.y2 - d.y1 });
      detGtBottom.push({ frame, id: g.id, x: d.x1, y: d.y1, w: d.x2 - d.x1, h: g.y + g.h - d.y1 });
    });
  });
  const nGt = gt.length;
  detRows.push(
    `| ${scene.name} | ${nGt} | ${pct(tp, nGt)} | ${pct(tp, nDet)} | ${hRecall.map((b) => (b.n ? `${pct(b.hit, b.n)} (${b.n})` : '-')).join(' | ')} | ${oRecall.map((b) => (b.n ? `${pct(b.hit, b.n)} (${b.n})` : '-')).join(' | ')} |`,
  );
  bottomRows.push(
    `| ${scene.name} | ${q(topErr, 0.5)} [${q(topErr, 0.1)}, ${q(topErr, 0.9)}] | ${q(bottomErr, 0.5)} [${q(bottomErr, 0.1)}, ${q(bottomErr, 0.9)}] | ${bottomByOcc.map((v) => (v.length ? `${q(v, 0.5)} [${q(v, 0.1)}, ${q(v, 0.9)}]` : '-')).join(' | ')} |`,
  );
  const truth = truthCounts(gt, lines, zones, place.frameW, place.frameH);
  const score = (boxes: MotBox[]) => {
    const c = truthCounts(boxes, lines, zones, place.frameW, place.frameH);
    const L = scoreLines(truth.lines, c.lines);
    const Z = scoreZones(truth.zones, c.zones);
    return `${pct(L.absError, L.truth)} (extra ${L.extra}) | ${pct(Z.absError, Z.truth)}`;
  };
  oracleRows.push(`| ${scene.name} | ${score(recallOnly)} | ${score(detOracle)} | ${score(detGtBottom)} | ${score(footFromHeight(detOracle, 8))} | ${score(footFromHeight(detOracle, 8, true))} |`);
}
console.log('\nDetection vs gt.txt (recall by annotated box height in the delivered frame, and by occlusion):');
console.log(
  `| scene | gt boxes | recall | precision | ${H_BINS.slice(1)
    .map((h, k) => `h ${H_BINS[k]}-${h}`)
    .join(' | ')} | ${OCC_BINS.slice(1)
    .map((o, k) => `occ ${OCC_BINS[k]}-${o}`)
    .join(' | ')} |`,
);
console.log(`|---|---|---|---|${'---|'.repeat(H_BINS.length - 1 + OCC_BINS.length - 1)}`);
for (const r of detRows) console.log(r);
console.log('\nDetected minus annotated edge, in annotated box heights (positive: lower in the picture): median [p10, p90]; bottom by occlusion:');
console.log(
  `| scene | top edge, all | bottom edge, all | ${OCC_BINS.slice(1)
    .map((o, k) => `bottom, occ ${OCC_BINS[k]}-${o}`)
    .join(' | ')} |`,
);
console.log(`|---|---|---|${'---|'.repeat(OCC_BINS.length - 1)}`);
for (const r of bottomRows) console.log(r);
console.log('\nCount error of the oracles (line error (extra counts) | zone error):');
console.log(
  '| scene | recall only (line, zone) | det boxes + gt ids (line, zone) | det boxes + gt ids + gt bottom (line, zone) | det boxes + gt ids, bottom = top + median height of 8 frames (line, zone) | same, only where it raises the bottom (line, zone) |',
);
console.log('|---|---|---|---|---|---|');
for (const r of oracleRows) console.log(r);
await registry.close();

/** Each box's bottom moved to its top plus the median height of the same id's last `k` boxes (`onlyUp`: only where that raises it, a box grown downwards). */
function footFromHeight(boxes: MotBox[], k: number, onlyUp = false): MotBox[] {
  const heights = new Map<number, number[]>();
  return [...boxes]
    .sort((a, b) => a.frame - b.frame)
    .map((b) => {
      const hs = heights.get(b.id) ?? [];
      hs.push(b.h);
      if (hs.length > k) hs.shift();
      heights.set(b.id, hs);
      const sorted = [...hs].sort((x, y) => x - y);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      return { ...b, h: onlyUp ? Math.min(b.h, median) : median };
    });
}

function q(v: number[], p: number): string {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2);
}
