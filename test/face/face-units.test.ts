import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALIGNED_SIZE, ARCFACE_TEMPLATE, alignFace, estimateSimilarity, invertAffine, type Affine } from '../../src/modules/face/face-align.js';
import { nms, type Point, type RawFace } from '../../src/modules/face/face-geometry.js';
import { assessQuality } from '../../src/modules/face/face-quality.js';
import { headPose } from '../../src/modules/face/head-pose.js';
import { livenessCropBox } from '../../src/modules/face/passive-liveness.js';
import { decodeScrfd } from '../../src/modules/face/scrfd-decoder.js';
import { FAR_TABLE, IMPOSTOR_FITS, ScoreCalibration } from '../../src/modules/face/score-calibration.js';

const apply = (m: Affine, [x, y]: Point): Point => [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]];

describe('face geometry and scoring units', () => {
  it('NMS keeps the higher-scored of two overlapping faces and any separate one', () => {
    const f = (box: [number, number, number, number], score: number): RawFace => ({ box, score, kps: [] });
    const kept = nms([f([0, 0, 100, 100], 0.7), f([5, 5, 105, 105], 0.9), f([300, 300, 380, 380], 0.6)], 0.4);
    assert.deepEqual(
      kept.map((k) => k.score),
      [0.9, 0.6],
    );
  });

  it('estimateSimilarity recovers a known rotation + scale + shift, and invertAffine undoes it', () => {
    const a = 1.7 * Math.cos(0.4),
      b = 1.7 * Math.sin(0.4);
    const truth: Affine = [a, -b, 12, b, a, -7];
    const src = ARCFACE_TEMPLATE.map((p) => apply(invertAffine(truth), p));
    const est = estimateSimilarity(src, ARCFACE_TEMPLATE);
    est.forEach((v, i) => assert.ok(Math.abs(v - truth[i]!) < 1e-9, `coefficient ${i}`));
    const back = apply(invertAffine(est), apply(est, [3, 4]));
    assert.ok(Math.abs(back[0] - 3) < 1e-9 && Math.abs(back[1] - 4) < 1e-9);
  });

  it('alignFace maps the landmarks onto the 112x112 template (checked through a marked pixel)', () => {
    const W = 400,
      H = 300;
    const data = Buffer.alloc(W * H * 3);
    // landmarks = template scaled 2x, shifted by (100, 50); mark the nose tip pixel red.
    const kps = ARCFACE_TEMPLATE.map(([x, y]) => [x * 2 + 100, y * 2 + 50] as Point);
    const [nx, ny] = kps[2]!.map(Math.round) as [number, number];
    for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) data[((ny + dy) * W + nx + dx) * 3] = 255;
    const aligned = alignFace({ data, width: W, height: H }, kps);
    assert.equal(aligned.width, ALIGNED_SIZE);
    const [tx, ty] = ARCFACE_TEMPLATE[2]!.map(Math.round) as [number, number];
    assert.ok(aligned.data[(ty * ALIGNED_SIZE + tx) * 3]! > 200, 'nose tip not at the template nose');
    assert.equal(aligned.data[(10 * ALIGNED_SIZE + 10) * 3], 0);
  });

  it('SCRFD decoding reads outputs by order (names differ between 500m and 2.5g)', () => {
    // 64x32 input: stride 8 -> 8x4 cells x 2 anchors = 64 anchors; 16 -> 16; 32 -> 4.
    const counts = [64, 16, 4];
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const outputs: Record<string, { data: Float32Array; dims: number[] }> = {};
    counts.forEach((n, i) => {
      outputs[names[i]!] = { data: new Float32Array(n), dims: [n, 1] };
      outputs[names[i + 3]!] = { data: new Float32Array(n * 4), dims: [n, 4] };
      outputs[names[i + 6]!] = { data: new Float32Array(n * 10), dims: [n, 10] };
    });
    // anchor 2*(row 1 * 8 cols + col 3) + 1 at stride 8: centre (24, 8)
    const a = 2 * (1 * 8 + 3) + 1;
    outputs.a!.data[a] = 0.9;
    outputs.d!.data.set([1, 1, 2, 2], a * 4);
    outputs.g!.data.set([0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0], a * 10);
    const faces = decodeScrfd(outputs, names, 64, 32, 0.5, 0.5);
    assert.equal(faces.length, 1);
    // box = [cx - 8, cy - 8, cx + 16, cy + 16] / 0.5
    assert.deepEqual(faces[0]!.box, [32, 0, 80, 48]);
    assert.deepEqual(faces[0]!.kps[0], [56, 24]);
  });

  it('calibration is strictly increasing, stays in [0, 1] and puts the table thresholds at the fitted tail', () => {
    for (const [name, fit] of Object.entries(IMPOSTOR_FITS)) {
      const cal = new ScoreCalibration(fit);
      let prev = -Infinity;
      for (let raw = -1; raw <= 1.0001; raw += 0.01) {
        const c = cal.calibrate(raw);
        assert.ok(c >= 0 && c <= 1, `${name}: ${c} out of range`);
        assert.ok(c > prev, `${name}: not increasing at ${raw}`);
        prev = c;
      }
      for (const [i, row] of FAR_TABLE.entries()) {
        const raw = fit.raw_thresholds[i]!;
        assert.ok(Math.abs(cal.calibrate(raw) - row.threshold) < 1e-9);
        assert.ok(Math.abs(cal.rawFor(row.threshold) - raw) < 1e-9);
      }
    }
  });

  it('liveness crop follows minivision CropImage (scaled box, capped, shifted inside the image)', () => {
    // centre (150, 160), 100x120 box x 2.7 = 270x324 -> [15, -2, 285, 322] -> shifted down by 2.
    assert.deepEqual(livenessCropBox(640, 480, [100, 100, 200, 220], 2.7), [15, 0, 285, 324]);
    // scale capped by the image: min(479/120, 639/100, 4.0) = 3.99 -> height 478.99 fills the frame.
    const [, y1, , y2] = livenessCropBox(640, 480, [100, 100, 200, 220], 4.0);
    assert.equal(y1, 0);
    assert.ok(y2 >= 478);
  });

  it('head pose: roll follows the eye line, yaw the nose offset', () => {
    const frontal = headPose(ARCFACE_TEMPLATE);
    assert.ok(Math.abs(frontal.yaw) < 2 && Math.abs(frontal.roll) < 1);
    const c = Math.cos(0.35),
      s = Math.sin(0.35);
    const rolled = headPose(ARCFACE_TEMPLATE.map(([x, y]) => [x * c - y * s, x * s + y * c] as Point));
    assert.ok(Math.abs(rolled.roll - frontal.roll - 20.05) < 0.1, `roll ${rolled.roll}`);
    const turned = headPose(ARCFACE_TEMPLATE.map(([x, y], i) => (i === 2 ? [x + 15, y] : [x, y]) as Point));
    assert.ok(turned.yaw > 30, `yaw ${turned.yaw}`);
  });

  it('quality: a flat grey crop is not acceptable and says why in {code, message, value, threshold}', () => {
    const flat = { data: Buffer.alloc(112 * 112 * 3, 128), width: 112, height: 112 };
    const q = assessQuality({ aligned: flat, faceSize: 150, kps: ARCFACE_TEMPLATE, gate: 30 });
    assert.equal(q.is_acceptable, false);
    assert.ok(q.overall_score < 30);
    const codes = q.reasons.map((r) => r.code);
    assert.ok(codes.includes('BLURRY') && codes.includes('LOW_CONTRAST') && codes.includes('LOW_QUALITY_SCORE'), codes.join());
    for (const r of q.reasons) assert.deepEqual(Object.keys(r).sort(), ['code', 'message', 'threshold', 'value']);
    const tiny = assessQuality({ aligned: flat, faceSize: 10, kps: ARCFACE_TEMPLATE, gate: 0 });
    assert.equal(tiny.is_acceptable, true);
    assert.deepEqual(tiny.reasons, []);
  });
});
