// face.edge_pad: the detector input gets a black margin for faces cut by the frame edge; the
// faces it reports must stay in the image's own coordinates.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeImage } from '../../src/core/image-decode.js';
import { testApp } from '../helpers/app.js';
import { testdata } from '../helpers/paths.js';

describe('face.edge_pad', () => {
  it('padded detection reports the same boxes and landmarks as unpadded (guards a margin left in the coordinates)', async () => {
    const t = await testApp({ face: { edge_pad: 0.2, enable_liveness: false, enable_demographics: false } });
    try {
      const img = await decodeImage(readFileSync(testdata('faces', 'multi', 'faceapi_bbt4.jpg')), { field: 'image', maxPixels: 1e8 });
      const padded = await t.app.face.detect(img);
      const plain = await t.app.face.detect(img, { edgePad: 0 });
      assert.equal(padded.length, 6);
      assert.equal(plain.length, 6);
      for (const p of padded) {
        const q = plain.find((f) => Math.abs(f.box[0] - p.box[0]) < 6 && Math.abs(f.box[1] - p.box[1]) < 6);
        assert.ok(q, `no unpadded face near ${p.box.map(Math.round).join(',')}`);
        for (let k = 0; k < 5; k++) {
          assert.ok(Math.hypot(q.kps[k]![0] - p.kps[k]![0], q.kps[k]![1] - p.kps[k]![1]) < 6, `landmark ${k} moved`);
        }
      }
    } finally {
      await t.close();
    }
  });
});
