import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { levelDim } from '../../src/modules/document/line-crop.js';

/** A grey crop (three equal channels) of `n` pixels: ink at `ink` on every fourth, paper at `paper` elsewhere. */
function crop(n: number, ink: number, paper: number): Uint8Array {
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) out.fill(i % 4 === 0 ? ink : paper, i * 3, i * 3 + 3);
  return out;
}

describe('MRZ crops of dim photos, levels stretched (issue 15: low light)', () => {
  // A dim room's photo holds a zone's print and paper within a fifth of the range: its padding's chevrons were
  // read as 4s and 5s.
  it('stretches a crop whose print and paper lie close to the full range', () => {
    const dim = crop(400, 12, 52);
    levelDim(dim);
    assert.equal(dim[0], 0);
    assert.equal(dim[3], 255);
    assert.equal(dim[4], 255);
  });

  it("leaves a crop with a lit page's contrast, and a blank one, as they were", () => {
    for (const [ink, paper] of [
      [30, 210],
      [90, 90],
    ] as const) {
      const lit = crop(400, ink, paper);
      const before = Uint8Array.from(lit);
      levelDim(lit);
      assert.deepEqual(lit, before);
    }
  });
});
