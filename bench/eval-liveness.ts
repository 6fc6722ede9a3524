// What the active-liveness judge reads on the shared real data, and what its thresholds rest on:
//  1. head pose on the Hamilton clip (frames 90-210, Lin-Manuel Miranda) and on the mirror image
//     of every frame (yaw must flip sign; pitch must not change);
//  2. the frames the sequence tests use, with every measure;
//  3. expression scores on the identity photos (smiling and neutral portraits);
//  4. same-person similarity (face service scale): genuine pairs among the clip frames and their
//     mirrors, impostor pairs between the clip frames and the other identities' photos;
//  5. passive liveness on pad/.
//   node --import tsx bench/eval-liveness.ts [--recognizer mobilefacenet_128d]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeImage, type RgbImage } from '../src/core/image-decode.js';
import { FaceMeasurer, type MeasuredFace } from '../src/modules/liveness/face-measurer.js';
import { frameFaces, type FrameFace } from '../src/modules/liveness/face-source.js';
import { testApp } from '../test/helpers/app.js';
import { testdata } from '../test/helpers/paths.js';
import { clipFrames, mirror } from '../test/liveness/frames.js';
import { machineLine, percentile } from './lib/stats.js';

console.log(machineLine());
const { values } = parseArgs({ options: { recognizer: { type: 'string' } } });
const t = await testApp(values.recognizer ? { face: { recognizer: values.recognizer as 'mobilefacenet_128d' | 'faceplugin_512d' } } : {});
const measurer = new FaceMeasurer(t.app.face);
const f1 = (v: number) => v.toFixed(1);
const f2 = (v: number) => v.toFixed(2);

interface Seen {
  face: FrameFace;
  faces: number;
  m: MeasuredFace;
}
async function look(buf: Buffer): Promise<Seen | null> {
  const img: RgbImage = await decodeImage(buf, { field: 'image', maxPixels: 40e6 });
  const faces = await frameFaces(t.app.face, img);
  if (!faces[0]) return null;
  return { face: faces[0], faces: faces.length, m: await measurer.measure(img, faces[0]) };
}

// 1. Clip frames and their mirrors.
const idx = Array.from({ length: 121 }, (_, i) => 90 + i);
const clip = clipFrames(idx);
const rows: { n: number; a: Seen; b: Seen }[] = [];
for (const n of idx) {
  const a = await look(clip.get(n)!);
  const b = await look(await mirror(clip.get(n)!));
  if (a && b && a.m.measurable && b.m.measurable) rows.push({ n, a, b });
}
const yawSym = rows.map((r) => Math.abs(r.a.m.measures.yaw + r.b.m.measures.yaw));
const pitchSym = rows.map((r) => Math.abs(r.a.m.measures.pitch - r.b.m.measures.pitch));
const yaws = rows.map((r) => r.a.m.measures.yaw);
const pitches = rows.map((r) => r.a.m.measures.pitch);
console.log(`\n1. head pose, clip frames 90-210: ${rows.length} measurable (with their mirrors)`);
console.log(`   yaw range ${f1(Math.min(...yaws))}..${f1(Math.max(...yaws))} deg, pitch range ${f1(Math.min(...pitches))}..${f1(Math.max(...pitches))} deg`);
console.log(`   |yaw + mirrored yaw|: median ${f1(percentile(yawSym, 50))}, p95 ${f1(percentile(yawSym, 95))}, max ${f1(Math.max(...yawSym))} deg`);
console.log(`   |pitch - mirrored pitch|: median ${f1(percentile(pitchSym, 50))}, p95 ${f1(percentile(pitchSym, 95))}, max ${f1(Math.max(...pitchSym))} deg`);

// 2. The frames the sequence tests use.
const USED: Record<string, number> = { frontal: 150, right: 133, chinDown: 98, chinUp: 158, level: 180, smile: 90, mouthOpen: 195 };
console.log('\n2. frames used by test/liveness/liveness-sequences.test.ts');
console.log('| frame | n | yaw | pitch | smile | jawOpen | eyeBlink max | presence | eye fit | passive |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const [name, n] of Object.entries(USED)) {
  const r = rows.find((x) => x.n === n);
  if (!r) continue;
  for (const [label, s] of [
    [name, r.a],
    [`${name} mirrored`, r.b],
  ] as const) {
    const m = s.m.measures;
    console.log(
      `| ${label} | ${n} | ${f1(m.yaw)} | ${f1(m.pitch)} | ${f2(m.smile)} | ${f2(m.jawOpen)} | ${f2(Math.max(m.blinkLeft, m.blinkRight))} | ${f2(s.m.presence)} | ${f2(s.m.eyeFit)} | ${s.face.liveness ? f2(s.face.liveness.score) : '-'} |`,
    );
  }
}

// 3. Expressions on the identity photos.
console.log('\n3. identity photos (fr_*): smile / jawOpen / eyeBlink max');
const photos: { file: string; seen: Seen }[] = [];
for (const dir of readdirSync(testdata('faces/identities')).filter((d) => d.startsWith('fr_'))) {
  for (const f of readdirSync(testdata('faces/identities', dir))) {
    const seen = await look(readFileSync(join(testdata('faces/identities', dir), f)));
    if (seen) photos.push({ file: `${dir}/${f}`, seen });
  }
}
for (const p of photos) {
  const m = p.seen.m.measures;
  console.log(`   ${p.file.padEnd(48)} smile ${f2(m.smile)}  jaw ${f2(m.jawOpen)}  blink ${f2(Math.max(m.blinkLeft, m.blinkRight))}  yaw ${f1(m.yaw)}`);
}

// 4. Same-person similarity.
const sim = (a: Seen, b: Seen) => t.app.face.similarity(a.face.embedding!, b.face.embedding!);
const clipSeen = rows.flatMap((r) => [r.a, r.b]);
const genuine: number[] = [];
for (let i = 0; i < clipSeen.length; i++) for (let j = i + 1; j < clipSeen.length; j++) genuine.push(sim(clipSeen[i]!, clipSeen[j]!));
const others = photos.filter((p) => !p.file.startsWith('fr_lin_manuel_miranda'));
const impostor: number[] = [];
for (const c of clipSeen) for (const p of others) impostor.push(sim(c, p.seen));
const thr = t.config.liveness.same_person_threshold;
console.log(`\n4. same-person similarity (${t.app.face.recognizerName}, calibrated scale), threshold liveness.same_person_threshold = ${thr}`);
console.log(
  `   genuine: ${genuine.length} pairs of clip frames (95-105 px faces, yaw -30..+30, mirrors included): min ${f2(Math.min(...genuine))}, p1 ${f2(percentile(genuine, 1))}, p5 ${f2(percentile(genuine, 5))}, median ${f2(percentile(genuine, 50))}; below threshold ${genuine.filter((v) => v < thr).length}`,
);
for (const th of [0.15, 0.2, 0.25, 0.3, 0.35]) {
  const g = genuine.filter((v) => v < th).length;
  const i = impostor.filter((v) => v >= th).length;
  console.log(`   at ${th}: genuine pairs below ${g} (${((100 * g) / genuine.length).toFixed(2)} %), impostor pairs at or above ${i} (${((100 * i) / impostor.length).toFixed(2)} %)`);
}
console.log(
  `   impostor: ${impostor.length} pairs clip frame x other identity photo: max ${f2(Math.max(...impostor))}, p99 ${f2(percentile(impostor, 99))}, median ${f2(percentile(impostor, 50))}; at or above threshold ${impostor.filter((v) => v >= thr).length}`,
);

// 5. Passive liveness on pad/.
console.log('\n5. passive liveness (face service) on faces/pad');
for (const f of readdirSync(testdata('faces/pad')).sort()) {
  const seen = await look(readFileSync(testdata('faces/pad', f)));
  console.log(`   ${f.padEnd(28)} ${seen?.face.liveness ? `is_live ${seen.face.liveness.is_live}, score ${f2(seen.face.liveness.score)}` : 'no face'}`);
}
await t.close();
console.log(machineLine());
