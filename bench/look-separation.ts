/**
 * How well the colour descriptor (src/modules/person/appearance.ts) tells people apart on the
 * MOT scenes: each cached YOLOX detection (score >= 0.5) that has a descriptor is given the
 * annotated id of the box it overlaps (IoU >= 0.5) and compared with the running appearance
 * (the tracker's rate) of its own person and of every other person seen in the last 30
 * frames within 2 box heights of it: the cases a hand-over or an association in a group
 * has to decide. Prints, per scene, the quantiles of both similarities and, for each
 * threshold, the share of the same person rejected and of the others accepted.
 *
 *   node --import tsx bench/look-separation.ts   (needs eval-tracking's caches)
 */
import { appearanceSimilarity, blendAppearance, type Appearance } from '../src/modules/person/appearance.js';
import { matchAnnotated } from './lib/annotated-overlap.js';
import { SCENES } from './lib/scenes.js';
import { describedScene, openSceneBench } from './lib/scene-bench.js';
import { machineLine } from './lib/stats.js';

const bench = await openSceneBench(416);
const RATE = 0.2;
const q = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(2) : '-');

console.log(machineLine());
for (const scene of SCENES) {
  const { place, frames, byFrame } = await describedScene(bench, scene);
  const known = new Map<number, { look: Appearance; frame: number; x: number; y: number; h: number }>();
  const same: number[] = [];
  const gapSame: number[] = [];
  const other: number[] = [];
  frames.forEach((f, i) => {
    const s = place.frameW / f.width;
    const dets = f.dets.filter((d) => d.score >= 0.5 && d.look);
    const truth = byFrame.get(i + 1) ?? [];
    for (const [a, b] of matchAnnotated(truth, dets, s)) {
      const d = dets[b]!;
      const id = truth[a]!.id;
      const x = (d.x1 + d.x2) / 2;
      const h = d.y2 - d.y1;
      for (const [oid, o] of known) {
        if (i - o.frame > 30 || Math.hypot(o.x - x, o.y - d.y2) > 2 * Math.max(h, o.h)) continue;
        const sim = appearanceSimilarity(o.look, d.look!);
        (oid === id ? same : other).push(sim);
        if (oid === id && i - o.frame >= 3) gapSame.push(sim);
      }
      const k = known.get(id);
      if (k) blendAppearance(k.look, d.look!, RATE);
      known.set(id, { look: k?.look ?? Float32Array.from(d.look!), frame: i, x, y: d.y2, h });
    }
  });
  console.log(
    `${scene.name} (${scene.split}): same person n=${same.length} p5 ${q(same, 0.05)} p10 ${q(same, 0.1)} median ${q(same, 0.5)} | others nearby n=${other.length} median ${q(other, 0.5)} p90 ${q(other, 0.9)} p95 ${q(other, 0.95)}`,
  );
  const rows = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85].map(
    (t) =>
      `${t}: same rejected ${((100 * same.filter((x) => x < t).length) / Math.max(1, same.length)).toFixed(1)}%, others accepted ${((100 * other.filter((x) => x >= t).length) / Math.max(1, other.length)).toFixed(1)}%`,
  );
  console.log(`  ${rows.join(' | ')}`);
  const auc = (a: number[], b: number[]) => {
    let w = 0;
    for (const x of a) for (const y of b) w += x > y ? 1 : x === y ? 0.5 : 0;
    return (w / Math.max(1, a.length * b.length)).toFixed(3);
  };
  console.log(
    `  same after a gap of 3+ frames n=${gapSame.length} p10 ${q(gapSame, 0.1)} median ${q(gapSame, 0.5)}; AUC same vs others ${auc(
      same.filter((_, k) => k % 4 === 0),
      other.filter((_, k) => k % 4 === 0),
    )}, after a gap ${auc(
      gapSame,
      other.filter((_, k) => k % 4 === 0),
    )}`,
  );
}
await bench.registry.close();
