/**
 * Whether the person detector's own feature maps tell people apart better than the colour
 * descriptor (src/modules/person/appearance.ts), as JDE/FairMOT-style trackers use theirs.
 * YOLOX-nano is opened with some intermediate tensors made extra outputs
 * (src/runtime/graph-outputs.ts); each detection's feature is the map averaged (bilinear
 * samples) over the box, per horizontal stripe, each stripe L2-normalised; compared by cosine.
 * Variants: each tensor alone, the three neck levels together, the map read at each stripe's
 * centre only (FairMOT's point), and "centred" (less the running mean of all boxes' features).
 *
 * As bench/look-separation.ts: each YOLOX detection (score >= 0.5) takes the annotated id of
 * the box it overlaps (IoU >= 0.5) and is compared with the running descriptor (rate 0.2) of
 * its own person and of every other person seen in the last 30 frames within 2 box heights.
 * Printed per scene and descriptor: AUC same vs others (all, and own last seen 3+ frames back),
 * and "top-1": of the detections with at least one such neighbour, the share whose own person
 * is more alike than every neighbour (own seen 1-30 frames back). Features are measured on the
 * boxes the colour descriptor describes (not hidden by 30 %) and on all matched boxes.
 *
 *   node --import tsx bench/reid-separation.ts [--scenes PETS09-S2L1,TUD-Campus]
 */
import { readFile } from 'node:fs/promises';
import * as ort from 'onnxruntime-node';
import { appearanceSimilarity, blendAppearance, type Appearance } from '../src/modules/person/appearance.js';
import { decodePersons, letterboxFeed, YOLOX_STRIDE } from '../src/modules/person/yolox-detector.js';
import { fillImageTensor } from '../src/runtime/image-feed.js';
import { freeSpatialInputDims } from '../src/runtime/free-input-dims.js';
import { exposeOutputs } from './lib/graph-outputs.js';
import { rewriteForCpu } from '../src/runtime/cpu-graph-rewrite.js';
import { frames as decodeFrames } from './lib/detection-cache.js';
import { matchAnnotated } from './lib/annotated-overlap.js';
import { SCENES } from './lib/scenes.js';
import { describedScene, openSceneBench } from './lib/scene-bench.js';
import { machineLine } from './lib/stats.js';

/** Tensors of person_det_yolox_nano_416.onnx: neck outputs and the head's per-level branches. */
const TENSORS: { name: string; label: string; stride: number }[] = [
  { name: '956', label: 'neck P3', stride: 8 },
  { name: '990', label: 'neck P4', stride: 16 },
  { name: '1024', label: 'neck P5', stride: 32 },
  { name: '1028', label: 'head stem s8', stride: 8 },
  { name: '1044', label: 'cls branch s8', stride: 8 },
  { name: '1061', label: 'reg branch s8', stride: 8 },
  { name: '1070', label: 'head stem s16', stride: 16 },
  { name: '1086', label: 'cls branch s16', stride: 16 },
];
const STRIPES = [3];
const RATE = 0.2;

interface Map3 {
  data: Float32Array;
  c: number;
  h: number;
  w: number;
}

function bilinear(m: Map3, ch: number, u: number, v: number): number {
  const x = Math.min(m.w - 1, Math.max(0, u));
  const y = Math.min(m.h - 1, Math.max(0, v));
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const x1 = Math.min(m.w - 1, x0 + 1);
  const y1 = Math.min(m.h - 1, y0 + 1);
  const fx = x - x0;
  const fy = y - y0;
  const p = m.data.subarray(ch * m.h * m.w, (ch + 1) * m.h * m.w);
  return (p[y0 * m.w + x0]! * (1 - fx) + p[y0 * m.w + x1]! * fx) * (1 - fy) + (p[y1 * m.w + x0]! * (1 - fx) + p[y1 * m.w + x1]! * fx) * fy;
}

/** The map averaged over a box (frame pixels = input pixels here), per stripe, each stripe unit length. */
function pool(m: Map3, stride: number, b: { x1: number; y1: number; x2: number; y2: number }, stripes: number, centre = false): Float32Array {
  const out = new Float32Array(m.c * stripes);
  // centre: one sample at the middle of each stripe (FairMOT reads its embedding at the object's centre).
  const gx = centre ? 1 : 4;
  const gy = centre ? 1 : 3;
  const bw = b.x2 - b.x1;
  const bh = b.y2 - b.y1;
  for (let s = 0; s < stripes; s++) {
    const o = s * m.c;
    for (let j = 0; j < gy; j++) {
      const y = b.y1 + bh * ((s + (j + 0.5) / gy) / stripes);
      for (let i = 0; i < gx; i++) {
        const x = centre ? (b.x1 + b.x2) / 2 : b.x1 + bw * (0.1 + (0.8 * (i + 0.5)) / gx);
        for (let ch = 0; ch < m.c; ch++) out[o + ch]! += bilinear(m, ch, x / stride - 0.5, y / stride - 0.5);
      }
    }
    let n = 0;
    for (let ch = 0; ch < m.c; ch++) n += out[o + ch]! ** 2;
    n = Math.sqrt(n) * Math.sqrt(stripes) || 1;
    for (let ch = 0; ch < m.c; ch++) out[o + ch] = out[o + ch]! / n;
  }
  return out;
}

/** A running feature moved RATE of the way towards a new one (a copy of it when there is none yet). */
function blend(old: Float32Array | null, nw: Float32Array): Float32Array {
  if (!old) return Float32Array.from(nw);
  for (let c = 0; c < old.length; c++) old[c] = old[c]! * (1 - RATE) + nw[c]! * RATE;
  return old;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let k = 0; k < a.length; k++) {
    d += a[k]! * b[k]!;
    na += a[k]! ** 2;
    nb += b[k]! ** 2;
  }
  return d / (Math.sqrt(na * nb) || 1);
}

/** One descriptor's comparisons over a scene. */
class Tally {
  same: number[] = [];
  gapSame: number[] = [];
  other: number[] = [];
  top1 = 0;
  top1Gap = 0;
  cases = 0;
  gapCases = 0;
  add(own: { sim: number; gap: number } | null, others: number[]): void {
    if (own) {
      this.same.push(own.sim);
      if (own.gap >= 3) this.gapSame.push(own.sim);
    }
    this.other.push(...others);
    if (own && others.length) {
      const win = own.sim > Math.max(...others) ? 1 : 0;
      this.cases++;
      this.top1 += win;
      if (own.gap >= 3) {
        this.gapCases++;
        this.top1Gap += win;
      }
    }
  }
  line(label: string): string {
    const pct = (a: number, n: number) => (n ? `${((100 * a) / n).toFixed(1)}%` : '-');
    return `${label.padEnd(24)} AUC ${auc(this.same, this.other)} after a gap ${auc(this.gapSame, this.other)} | top-1 ${pct(this.top1, this.cases)} (n=${this.cases}) after a gap ${pct(this.top1Gap, this.gapCases)} (n=${this.gapCases})`;
  }
}

function auc(a: number[], b: number[]): string {
  if (!a.length || !b.length) return '-';
  const all = [...a.map((v) => [v, 1] as const), ...b.map((v) => [v, 0] as const)].sort((p, q) => p[0] - q[0]);
  // Mann-Whitney with average ranks for ties.
  let rankSum = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j < all.length && all[j]![0] === all[i]![0]) j++;
    const r = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (all[k]![1]) rankSum += r;
    i = j;
  }
  return ((rankSum - (a.length * (a.length + 1)) / 2) / (a.length * b.length)).toFixed(3);
}

const scenesArg = process.argv.indexOf('--scenes');
const only = scenesArg > 0 ? process.argv[scenesArg + 1]?.split(',') : undefined;
const bench = await openSceneBench(416);
const { registry, detector, modelFile, ff } = bench;
const bytes = rewriteForCpu(
  exposeOutputs(
    freeSpatialInputDims(await readFile(modelFile)),
    TENSORS.map((t) => t.name),
  ),
).bytes;
const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, graphOptimizationLevel: 'all', extra: { session: { intra_op: { allow_spinning: '0' } } } });

console.log(machineLine());
for (const scene of SCENES) {
  if (only && !only.includes(scene.name)) continue;
  const { place, frames: described, byFrame } = await describedScene(bench, scene);
  const variants = [
    ...TENSORS.flatMap((t) => STRIPES.map((s) => ({ ts: [t], s, centred: false, centre: false, label: `${t.label} x${s}` }))),
    ...[0, 4].flatMap((k) => [1, 3].map((s) => ({ ts: [TENSORS[k]!], s, centred: false, centre: true, label: `${TENSORS[k]!.label} centre x${s}` }))),
    { ts: TENSORS.slice(0, 3), s: 3, centred: false, centre: false, label: 'neck P3+P4+P5 x3' },
    ...[0, 4, 2].map((k) => ({ ts: [TENSORS[k]!], s: 3, centred: true, centre: false, label: `${TENSORS[k]!.label} x3 centred` })),
    { ts: TENSORS.slice(0, 3), s: 3, centred: true, centre: false, label: 'neck P3+P4+P5 x3 centred' },
  ];
  // Centred variants: the running mean of every matched box's feature, taken off before the cosine
  // (post-SiLU maps share a large common part that raises every similarity alike).
  const means = variants.map(() => null as Float32Array | null);
  const sim = (k: number, a: Float32Array, b: Float32Array) => {
    const m = means[k];
    if (!variants[k]!.centred || !m) return cosine(a, b);
    return cosine(
      a.map((v, c) => v - m[c]!),
      b.map((v, c) => v - m[c]!),
    );
  };
  // Per descriptor: running value per person, and tallies on the colour-described boxes and on all.
  const known = new Map<
    number,
    { frame: number; x: number; y: number; h: number; look: Appearance | null; lookFrame: number; feats: (Float32Array | null)[]; featsC: (Float32Array | null)[]; featFrame: number }
  >();
  const colour = new Tally();
  const onColour = variants.map(() => new Tally());
  const onAll = variants.map(() => new Tally());
  const both = variants.map(() => new Tally());
  let mismatched = 0;
  let i = -1;
  let ms = 0;
  for await (const f of decodeFrames(ff, place.file, detector.inputSize)) {
    i++;
    const cached = described[i];
    if (!cached) break;
    const inW = Math.ceil(f.width / YOLOX_STRIDE) * YOLOX_STRIDE;
    const inH = Math.ceil(f.height / YOLOX_STRIDE) * YOLOX_STRIDE;
    const buf = fillImageTensor(letterboxFeed(f, inW, inH, 'images'), new Float32Array(3 * inW * inH));
    const t0 = performance.now();
    const res = await session.run({ images: new ort.Tensor('float32', buf, [1, 3, inH, inW]) });
    ms += performance.now() - t0;
    const mine = decodePersons(res['output']!.data as Float32Array, inW, inH, 1, f.width, f.height, 0.1);
    if (mine.length !== cached.dets.length) mismatched++;
    const maps = TENSORS.map((t) => {
      const v = res[t.name]!;
      return { data: v.data as Float32Array, c: Number(v.dims[1]), h: Number(v.dims[2]), w: Number(v.dims[3]) };
    });
    if (i === 0) console.log(`${scene.name}: maps ${TENSORS.map((t, k) => `${t.name} ${maps[k]!.c}x${maps[k]!.h}x${maps[k]!.w}`).join(', ')}`);
    const s = place.frameW / f.width;
    const dets = cached.dets.filter((d) => d.score >= 0.5);
    const truth = byFrame.get(i + 1) ?? [];
    for (const [a, b] of matchAnnotated(truth, dets, s)) {
      const d = dets[b]!;
      const id = truth[a]!.id;
      const x = (d.x1 + d.x2) / 2;
      const h = d.y2 - d.y1;
      const feats = variants.map((v) => {
        const parts = v.ts.map((t) => pool(maps[TENSORS.indexOf(t)]!, t.stride, d, v.s, v.centre));
        const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
        let o = 0;
        for (const p of parts) {
          out.set(p, o);
          o += p.length;
        }
        return out;
      });
      const near = [...known].filter(([, o]) => i - o.frame <= 30 && Math.hypot(o.x - x, o.y - d.y2) <= 2 * Math.max(h, o.h));
      const mineK = known.get(id);
      const ownNear = near.find(([oid]) => oid === id)?.[1] ?? null;
      const others = near.filter(([oid]) => oid !== id).map(([, o]) => o);
      if (d.look) {
        // Like for like: the colour descriptor and, updated on the same boxes, each feature.
        const own = ownNear?.look ? ownNear : null;
        const lookOthers = others.filter((o) => o.look);
        const c = own ? appearanceSimilarity(own.look!, d.look) : 0;
        const cOthers = lookOthers.map((o) => appearanceSimilarity(o.look!, d.look!));
        colour.add(own ? { sim: c, gap: i - own.lookFrame } : null, cOthers);
        variants.forEach((_, k) => {
          const f = own ? sim(k, own.featsC[k]!, feats[k]!) : 0;
          const fOthers = lookOthers.map((o) => sim(k, o.featsC[k]!, feats[k]!));
          onColour[k]!.add(own ? { sim: f, gap: i - own.lookFrame } : null, fOthers);
          both[k]!.add(
            own ? { sim: (c + f) / 2, gap: i - own.lookFrame } : null,
            cOthers.map((x, n) => (x + fOthers[n]!) / 2),
          );
        });
      }
      variants.forEach((_, k) => {
        const own = ownNear?.feats[k] ? { sim: sim(k, ownNear.feats[k], feats[k]!), gap: i - ownNear.featFrame } : null;
        onAll[k]!.add(
          own,
          others.flatMap((o) => (o.feats[k] ? [sim(k, o.feats[k], feats[k]!)] : [])),
        );
      });
      const entry = mineK ?? { frame: i, x, y: d.y2, h, look: null, lookFrame: -1, feats: variants.map(() => null), featsC: variants.map(() => null), featFrame: -1 };
      Object.assign(entry, { frame: i, x, y: d.y2, h });
      if (d.look) {
        if (entry.look) blendAppearance(entry.look, d.look, RATE);
        else entry.look = Float32Array.from(d.look) as Appearance;
        entry.lookFrame = i;
        entry.featsC = entry.featsC.map((old, k) => blend(old, feats[k]!));
      }
      entry.feats = entry.feats.map((old, k) => blend(old, feats[k]!));
      entry.featFrame = i;
      feats.forEach((f, k) => {
        const m = means[k];
        if (!m) means[k] = Float32Array.from(f);
        else for (let c = 0; c < m.length; c++) m[c] = m[c]! * 0.98 + f[c]! * 0.02;
      });
      known.set(id, entry);
    }
  }
  console.log(
    `${scene.name} (${scene.split}): ${i + 1} frames, detector with extra outputs ${(ms / (i + 1)).toFixed(1)} ms/frame; frames whose decoded boxes differ in number from the cache: ${mismatched}`,
  );
  console.log(`  ${colour.line('colour histogram')}`);
  console.log('  on the same boxes and pairs (features updated on the boxes the colour descriptor describes):');
  variants.forEach((v, k) => console.log(`  ${onColour[k]!.line(v.label)}`));
  console.log('  colour and feature similarity averaged, same pairs:');
  variants.forEach((v, k) => console.log(`  ${both[k]!.line(`+ ${v.label}`)}`));
  console.log('  on all matched boxes:');
  variants.forEach((v, k) => console.log(`  ${onAll[k]!.line(v.label)}`));
}
await registry.close();
