import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fitRigid, imagePlane, upperFace } from '../../src/modules/liveness/rigid-pose.js';
import { rng } from '../../bench/lib/attack-edits.js';

// A face-shaped cloud of 478 points in image pixels: 100 px wide, depth bulging towards the
// camera at the centre (z < 0 in front, as the landmark model gives it), with the mesh indices
// the upper-face selection reads (outer eye corners 33 and 263, subnasale 2) where a face has them.
function face(): Float32Array {
  const rand = rng(7);
  const p = new Float32Array(478 * 3);
  for (let i = 0; i < 478; i++) {
    const x = (rand() - 0.5) * 100;
    const y = (rand() - 0.5) * 130;
    p[i * 3] = 300 + x;
    p[i * 3 + 1] = 200 + y;
    p[i * 3 + 2] = -40 * (1 - (x / 50) ** 2) * (1 - 0.3 * (y / 65) ** 2);
  }
  const set = (i: number, x: number, y: number, z: number) => p.set([300 + x, 200 + y, z], i * 3);
  set(33, -40, -20, -10);
  set(263, 40, -20, -10);
  set(2, 0, 20, -35);
  return p;
}

/** The points nodded by `pitch` degrees about a horizontal axis through (300, 200, 0), then turned by `yaw` about a vertical one; orthographic, shifted. */
function turned(p: Float32Array, yaw: number, pitch = 0): Float32Array {
  const a = (yaw * Math.PI) / 180;
  const b = (pitch * Math.PI) / 180;
  const out = new Float32Array(p.length);
  for (let i = 0; i < p.length / 3; i++) {
    const x = p[i * 3]! - 300;
    const y = p[i * 3 + 1]! - 200;
    const z = p[i * 3 + 2]!;
    // Looking up moves the nose (in front, z < 0) up the image: y' = y cos + z sin.
    const y1 = y * Math.cos(b) + z * Math.sin(b);
    const z1 = -y * Math.sin(b) + z * Math.cos(b);
    // The user's own left turn moves the nose towards image right: x' = x cos - z sin.
    const x2 = x * Math.cos(a) - z1 * Math.sin(a);
    const z2 = x * Math.sin(a) + z1 * Math.cos(a);
    out.set([300 + x2 + 15, 200 + y1 - 5, z2], i * 3);
  }
  return out;
}

describe('rigid head fit (rigid-pose.ts)', () => {
  it("recovers a turn and a nod with head-pose.ts's signs, and fits them exactly", () => {
    const ref = face();
    const use = upperFace(ref);
    for (const [yaw, pitch] of [
      [25, 0],
      [-30, 0],
      [0, 15],
      [20, -12],
    ] as const) {
      const fit = fitRigid(ref, imagePlane(turned(ref, yaw, pitch)), use);
      assert.ok(Math.abs(fit.yaw - yaw) < 0.5, `yaw ${fit.yaw} for ${yaw}`);
      assert.ok(Math.abs(fit.pitch - pitch) < 0.5, `pitch ${fit.pitch} for ${pitch}`);
      assert.ok(fit.residual < 1e-3, `residual ${fit.residual}`);
      assert.ok(Math.abs(fit.scale - 1) < 1e-3);
    }
  });

  it('leaves a residual when the points moved in a way no rotation gives', () => {
    const ref = face();
    const warped = imagePlane(ref);
    // Shift each point by a fixed horizontal offset that depends on its height alone.
    for (let i = 0; i < warped.length / 2; i++) warped[i * 2] = warped[i * 2]! + 8 * Math.sin((warped[i * 2 + 1]! - 200) / 10);
    assert.ok(fitRigid(ref, warped, upperFace(ref)).residual > 0.05);
  });

  it('the upper face is the points above the nose, irises left out', () => {
    const ref = face();
    const use = upperFace(ref);
    assert.ok(use.length > 100 && use.length < 400, String(use.length));
    assert.ok(use.every((i) => i < 468 && ref[i * 3 + 1]! <= 220 + 1e-3));
  });
});
