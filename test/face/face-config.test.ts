import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeImage } from '../../src/core/image-decode.js';
import { testApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

const file = (...p: string[]) => readFileSync(testdata('faces', ...p));

describe('face: configuration is honoured', () => {
  it('yunet + mobilefacenet_128d, liveness and quality off, max_faces 2', async () => {
    const t = await testApp({ face: { detector: 'yunet', recognizer: 'mobilefacenet_128d', enable_liveness: false, enable_quality: false, max_faces: 2 } });
    try {
      assert.equal(t.app.face.recognizerName, 'face_rec_mobilefacenet_128d');
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/detect', ...multipart([{ name: 'image', file: file('multi', 'faceapi_bbt4.jpg') }]) });
      const body = res.json();
      assert.equal(body.count, 2);
      const all = await t.app.face.detect(await decodeImage(file('multi', 'faceapi_bbt4.jpg'), { field: 'image', maxPixels: 1e8 }), { maxFaces: 10 });
      assert.equal(all.length, 6);
      // the two returned are the two largest of the six
      assert.ok(body.faces[1].detection.face_size >= Math.sqrt((all[2]!.box[2] - all[2]!.box[0]) * (all[2]!.box[3] - all[2]!.box[1])) - 0.01);
      for (const f of body.faces) {
        assert.equal(f.liveness, null);
        assert.equal(f.quality, null);
        assert.equal(f.has_embedding, true);
      }
      const v = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        ...multipart([
          { name: 'image1', file: file('identities', 'bbt_sheldon', 'sheldon1.png') },
          { name: 'image2', file: file('identities', 'bbt_sheldon', 'sheldon2.png') },
        ]),
      });
      assert.equal(v.json().is_match, true);
      const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean; reason?: string }[];
      const liveness = models.find((m) => m.name === 'liveness')!;
      assert.equal(liveness.loaded, false);
      assert.match(liveness.reason!, /enable_liveness: false/);
    } finally {
      await t.close();
    }
  });

  it('scrfd_2.5g honours det_thresh and det_size', async () => {
    const t = await testApp({ face: { detector: 'scrfd_2.5g', det_thresh: 0.97, det_size: [320, 320] } });
    try {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/detect', ...multipart([{ name: 'image', file: file('multi', 'faceapi_bbt4.jpg') }]) });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().count, 0, 'no face of this image scores 0.97');
      const img = await decodeImage(file('multi', 'faceapi_bbt4.jpg'), { field: 'image', maxPixels: 1e8 });
      const faces = await t.app.face.detect(img, { detThresh: 0.5 });
      assert.equal(faces.length, 6);
      for (const f of faces) assert.ok(f.box[2] <= img.width && f.box[3] <= img.height, 'box not in original coordinates');
    } finally {
      await t.close();
    }
  });
});
