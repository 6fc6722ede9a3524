// What the depth parallax check of head turns and looks (src/modules/liveness/depth-parallax.ts)
// reads on genuine movements and on 2-D edits of one photo, frame pairs judged outside sessions:
// the distributions its threshold is set from, beside the residual of the landmarks' rigid fit
// (rigid-pose.ts), which does not separate the two (the landmark model draws a turned face's
// points whatever the pixels).
//  - genuine: every frame of a clip turned as a turn challenge asks (yaw moved >= 20 deg from the
//    reference, ending >= 8 deg to that side), or nodded as a look asks (pitch moved >= 12 deg),
//    against each of the clip's frames facing the camera (the baseline): the Hamilton clip
//    (frames 90-210, which holds one real look up and one down) and its mirror image, the Obama
//    clip and its mirror;
//  - attacks: the turn and look ladders of the warp, slide, perspective and noise kits
//    (bench/lib/attack-kits.ts) on the fr_* identity photos that face the camera and on pad/,
//    each edit that the landmarks read as such a turn or look against the unedited photo.
// `--identities even|odd` keeps every other photo, so a threshold set on one half can be checked
// on the other.
//   node --import tsx bench/eval-head-rigidity.ts [--identities all] [--seed N]
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { decodeImage, type RgbImage } from '../src/core/image-decode.js';
import { centreLineParallax, greyPatch, PARALLAX, parallaxFraction, patchStep } from '../src/modules/liveness/depth-parallax.js';
import { FaceMeasurer, type MeasuredFace } from '../src/modules/liveness/face-measurer.js';
import { detectFrameFaces, faceBox } from '../src/modules/liveness/face-source.js';
import { fitRigid, imagePlane, upperFace } from '../src/modules/liveness/rigid-pose.js';
import { testApp } from '../test/helpers/app.js';
import { testdata } from '../test/helpers/paths.js';
import { addNoise, type FaceGeom } from './lib/attack-edits.js';
import { ladder, type Species, type Victim } from './lib/attack-kits.js';
import { freshSeed, seededRandom } from './lib/seeded.js';
import { machineLine, percentile } from './lib/stats.js';

const { values } = parseArgs({ options: { identities: { type: 'string', default: 'all' }, seed: { type: 'string' } } });
const seed = values.seed ? Number(values.seed) : freshSeed();
const rand = seededRandom(seed);
console.log(machineLine());
console.log(`seed ${seed} (the noise kit's draws; replay with --seed ${seed}), identities ${values.identities}, threshold ${PARALLAX.minObserved}`);

const t = await testApp({ document: { enabled: false }, person: { enabled: false }, identity: { enabled: false } } as never);
const measurer = new FaceMeasurer(t.app.face);
/** Turn rule of the judge (liveness.turn_degrees 20, ending turned by 20 - 12 deg). */
const TURN = 20;
const END = 8;

interface Seen {
  m: MeasuredFace;
  geom: FaceGeom;
  img: RgbImage;
}
async function look(img: RgbImage): Promise<Seen | null> {
  const det = await detectFrameFaces(t.app.face, img);
  if (!det[0]) return null;
  const m = await measurer.measure(img, faceBox(det[0]));
  return m.measurable ? { m, geom: { bbox: det[0].box, kps: det[0].kps }, img } : null;
}

/** Look rule of the judge (liveness.look_degrees 12, from a baseline facing the camera within 12 deg of yaw). */
const LOOK = 12;
const NEUTRAL_YAW = 12;

/**
 * Residual of the landmarks' rigid fit and the parallax fraction (parallaxFraction) of a pair the
 * judge would read as a turn (axis yaw) or a look up or down (axis pitch); null otherwise.
 */
function judgePair(ref: Seen, cur: Seen, axis: 'yaw' | 'pitch'): { residual: number; observed: number } | null {
  if (axis === 'yaw') {
    const d = cur.m.measures.yaw - ref.m.measures.yaw;
    if (Math.abs(d) < TURN || Math.sign(cur.m.measures.yaw) !== Math.sign(d) || Math.abs(cur.m.measures.yaw) < END) return null;
  } else if (Math.abs(ref.m.measures.yaw) > NEUTRAL_YAW || Math.abs(cur.m.measures.pitch - ref.m.measures.pitch) < LOOK) {
    return null;
  }
  const fit = fitRigid(ref.m.points, imagePlane(cur.m.points), upperFace(ref.m.points));
  const step = patchStep(ref.geom.bbox);
  const p = centreLineParallax(greyPatch(ref.img, ref.geom.bbox, step), ref.m.points, greyPatch(cur.img, cur.geom.bbox, step), cur.m.points, fit);
  // A pair whose patches cannot be compared does not pass the check: count it as no parallax.
  return { residual: fit.residual, observed: parallaxFraction(p, axis) ?? -Infinity };
}

const rows = new Map<string, { residual: number; observed: number }[]>();
const add = (k: string, r: { residual: number; observed: number } | null) => {
  if (r) rows.set(k, [...(rows.get(k) ?? []), r]);
};

function clip(file: string, w: number, h: number, from: number, to: number, flip = false): RgbImage[] {
  const vf = flip ? ['-vf', 'hflip'] : [];
  const raw = execFileSync(ffmpeg.path, ['-loglevel', 'quiet', '-i', testdata(file), ...vf, '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1 << 30 });
  const size = w * h * 3;
  const out: RgbImage[] = [];
  for (let i = from; i <= to && (i + 1) * size <= raw.length; i++) out.push({ data: Buffer.from(raw.subarray(i * size, (i + 1) * size)), width: w, height: h });
  return out;
}
const clips: [string, string, number, number, number, number][] = [
  ['Hamilton', 'video/fr_short_hamilton_clip.mp4', 640, 360, 90, 210],
  ['Obama', 'video/liveness-clips/obama_3ddfa_clip.mp4', 1280, 720, 0, 54],
];
for (const [name, file, w, h, from, to] of clips) {
  for (const flip of [false, true]) {
    const seen: Seen[] = [];
    for (const f of clip(file, w, h, from, to, flip)) {
      const s = await look(f);
      if (s) seen.push(s);
    }
    const label = `${name}${flip ? ' mirrored' : ''}`;
    for (const ref of seen.filter((s) => Math.abs(s.m.measures.yaw) <= 12)) {
      for (const cur of seen) {
        add(`turn: genuine ${label}`, judgePair(ref, cur, 'yaw'));
        add(`look: genuine ${label}`, judgePair(ref, cur, 'pitch'));
      }
    }
  }
}

const photos: string[] = [];
for (const d of readdirSync(testdata('faces/identities'))
  .filter((x) => x.startsWith('fr_'))
  .sort()) {
  for (const f of readdirSync(testdata(join('faces/identities', d))).sort()) photos.push(testdata(join('faces/identities', d, f)));
}
const pick = values.identities;
const chosen = photos.filter((_, i) => pick === 'all' || (pick === 'even') === (i % 2 === 0));
const pads = readdirSync(testdata('faces/pad'))
  .sort()
  .map((f) => testdata(join('faces/pad', f)))
  .filter((_, i) => pick === 'all' || (pick === 'even') === (i % 2 === 0));
const KITS: Species[] = ['warp', 'slide', 'perspective', 'noise'];
for (const file of [...chosen, ...pads]) {
  const img = await decodeImage(readFileSync(file), { field: 'image', maxPixels: 40e6 });
  const s = await look(img);
  if (!s) continue;
  const [l, r, nose] = s.geom.kps as [[number, number], [number, number], [number, number]];
  // As the attack bench: the attacker picks photos facing the camera.
  if (Math.abs(nose[0] - (l[0] + r[0]) / 2) > 0.12 * Math.hypot(r[0] - l[0], r[1] - l[1])) continue;
  const v: Victim = { name: file, img, geom: s.geom, others: [] };
  for (const sp of KITS) {
    // One ladder per species holds both directions of a turn, and of a look.
    for (const [axis, type] of [
      ['yaw', 'TURN_LEFT'],
      ['pitch', 'LOOK_UP'],
    ] as const) {
      for (const step of ladder(sp, type, v).slice(1)) {
        const e = await look(sp === 'noise' ? addNoise(step.img(), 4, rand) : step.img());
        if (e) add(`${axis === 'yaw' ? 'turn' : 'look'}: attack ${file.includes('/pad/') ? 'pad' : 'photo'} ${sp}`, judgePair(s, e, axis));
      }
    }
  }
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'none');
console.log('\n| pairs read as a turn or look | n | rigid-fit residual p50 / max (face sizes) | parallax fraction min / p5 / p50 / max | below threshold | at or above |');
console.log('|---|---|---|---|---|---|');
for (const [k, rs] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
  const res = rs.map((r) => r.residual);
  const obs = rs.map((r) => r.observed);
  const below = obs.filter((o) => o < PARALLAX.minObserved).length;
  console.log(
    `| ${k} | ${rs.length} | ${f2(percentile(res, 50) * 100)} / ${f2(Math.max(...res) * 100)} % | ${f2(Math.min(...obs))} / ${f2(percentile(obs, 5))} / ${f2(percentile(obs, 50))} / ${f2(Math.max(...obs))} | ${below} | ${rs.length - below} |`,
  );
}
await t.close();
console.log(machineLine());
