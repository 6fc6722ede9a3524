// dlib's face chip fitted on dense landmarks (issue 21: the licence-clean recognizer fed the
// chip dlib trained it on): the template, the mesh-to-dlib reading and the fit that uses them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dlibChipTemplate, dlibPointsFromMesh, MESH_FOR_DLIB } from '../../src/modules/face/dlib-chip.js';
import { DLIB_CHIP_SIZE, DLIB_CHIP_TEMPLATE, estimateSimilarity, type Affine } from '../../src/modules/face/face-align.js';
import type { Point } from '../../src/modules/face/face-geometry.js';

const apply = (m: Affine, [x, y]: Point): Point => [m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]];
const mean = (ps: Point[]): Point => [ps.reduce((s, p) => s + p[0], 0) / ps.length, ps.reduce((s, p) => s + p[1], 0) / ps.length];

describe("dlib's chip from dense landmarks", () => {
  const template = dlibChipTemplate(DLIB_CHIP_SIZE);
  const at = (dlib: number) => template[MESH_FOR_DLIB.findIndex(([i]) => i === dlib)]!;

  it("fits the 32 points get_face_chip_details fits, and agrees with the five-point template's eye centres and mouth corners", () => {
    assert.deepEqual(
      MESH_FOR_DLIB.map(([i]) => i),
      [...Array.from({ length: 28 }, (_, k) => 27 + k), 60, 61, 62, 63, 64],
    );
    // DLIB_CHIP_TEMPLATE (the fallback) was derived from the same mean shape: eye centre = mean of its six points.
    const eyes = [mean([36, 37, 38, 39, 40, 41].map(at)), mean([42, 43, 44, 45, 46, 47].map(at))];
    for (const [k, p] of [eyes[0]!, eyes[1]!, at(30), at(48), at(54)].entries()) {
      assert.ok(Math.hypot(p[0] - DLIB_CHIP_TEMPLATE[k]![0], p[1] - DLIB_CHIP_TEMPLATE[k]![1]) < 1e-3, `point ${k}: ${p} vs ${DLIB_CHIP_TEMPLATE[k]}`);
    }
    // Padding 0.25 of a 150 chip: the mean shape's unit square maps to 25..125.
    assert.ok(template.every(([x, y]) => x > 25 && x < 125 && y > 25 && y < 125));
  });

  it('reads the dlib points off a mesh (averaging paired mesh points) so that the fit recovers how the face was placed', () => {
    const a = 2.3 * Math.cos(-0.3),
      b = 2.3 * Math.sin(-0.3);
    const placed: Affine = [a, -b, 410, b, a, 95];
    const mesh = new Float32Array(478 * 2).fill(Number.NaN);
    for (const [k, [, ms]] of MESH_FOR_DLIB.entries()) {
      const [x, y] = apply(placed, template[k]!);
      // A pair straddles its dlib point: only their mean lands on it.
      ms.forEach((j, n) => {
        const off = ms.length === 2 ? (n === 0 ? 1.5 : -1.5) : 0;
        mesh[j * 2] = x + off;
        mesh[j * 2 + 1] = y - off;
      });
    }
    const pts = dlibPointsFromMesh(mesh);
    assert.ok(
      pts.every(([x, y]) => Number.isFinite(x) && Number.isFinite(y)),
      'every dlib point comes from mesh points that were set',
    );
    const fit = estimateSimilarity(pts, template);
    // The fit maps image points back onto the chip: it is the inverse of the placement.
    for (const p of [
      [0, 0],
      [150, 150],
      [75, 20],
    ] as Point[]) {
      const back = apply(fit, apply(placed, p));
      assert.ok(Math.hypot(back[0] - p[0], back[1] - p[1]) < 1e-3, `${p} -> ${back}`);
    }
  });
});
