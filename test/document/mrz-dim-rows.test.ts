import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stretchLevels } from '../../src/modules/document/line-crop.js';
import { generatedDocument } from '../fixtures/mrz-docs/render.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { mrzAnswer } from '../helpers/mrz-answer.js';

/** A grey crop (R = G = B) of `n` pixels: `ink` of them at level `dark`, the rest at `light`. */
function greyCrop(n: number, ink: number, dark: number, light: number): Uint8Array {
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) out.fill(i < ink ? dark : light, i * 3, i * 3 + 3);
  return out;
}

describe('levels of a dim MRZ crop', () => {
  it('stretches a dim crop so its ink reaches black and its paper white', () => {
    const crop = greyCrop(1000, 200, 12, 44);
    stretchLevels(crop);
    assert.equal(crop[0], 0);
    assert.equal(crop[3 * 999], 255);
  });

  it('leaves a well-lit crop, and a blank one, as they are', () => {
    for (const [dark, light] of [
      [30, 220],
      [120, 124],
    ] as const) {
      const crop = greyCrop(1000, 200, dark, light);
      const before = Uint8Array.from(crop);
      stretchLevels(crop);
      assert.deepEqual(crop, before);
    }
  });
});

describe('MRZ photographed in a dim room (real PP-OCRv4 models)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    await t.close();
  });

  // Documents of `bench/eval-documents-generated.ts --low-light` that main (897db7c) read wrong:
  // every pass read the zone's dim, noisy crop as it was, so a run of fillers came out `<<4<<4<44`
  // in every one of them and their average. The extra reads now see the crop's levels stretched.
  for (const [seed, index] of [
    [1286828636, 29],
    [1286828636, 30],
    [961497786, 60],
  ] as const) {
    it(`reads dim document ${index} of seed ${seed} fully`, async () => {
      const { id, doc } = await generatedDocument(seed, index, {}, { lowLight: true });
      assert.ok(doc.conditions.includes('low-light'));
      const got = await mrzAnswer(t, doc.image);
      assert.deepEqual(got.raw_mrz, id.expected.raw_mrz);
    });
  }
});
