import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

const file = (...p: string[]) => readFileSync(testdata('faces', ...p));

describe('face: /detect and /verify on the real models', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  const detect = (img: Buffer) => t.app.inject({ method: 'POST', url: '/api/v1/detect', ...multipart([{ name: 'image', file: img }]) });
  const verify = (a: Buffer, b: Buffer, threshold?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      ...multipart([{ name: 'image1', file: a }, { name: 'image2', file: b }, ...(threshold === undefined ? [] : [{ name: 'threshold', value: threshold }])]),
    });

  it('finds all six faces of faceapi_bbt4.jpg, largest first, with the full FaceResult', async () => {
    const res = await detect(file('multi', 'faceapi_bbt4.jpg'));
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.count, 6);
    assert.equal(body.faces.length, 6);
    const sizes = body.faces.map((f: { detection: { face_size: number } }) => f.detection.face_size);
    assert.deepEqual(sizes, [...sizes].sort((a: number, b: number) => b - a));
    for (const f of body.faces) {
      assert.equal(f.detection.bbox.length, 4);
      assert.equal(f.detection.landmarks.length, 5);
      assert.ok(f.detection.confidence >= 0.5 && f.detection.confidence <= 1);
      assert.equal(f.has_embedding, true);
      assert.ok(Number.isInteger(f.demographics.age) && ['M', 'F'].includes(f.demographics.gender));
      assert.equal(typeof f.liveness.is_live, 'boolean');
      assert.equal(typeof f.quality.overall_score, 'number');
      // landmarks inside their box
      const [x1, y1, x2, y2] = f.detection.bbox;
      for (const [x, y] of f.detection.landmarks) assert.ok(x >= x1 && x <= x2 && y >= y1 && y <= y2, 'landmark outside its box');
    }
  });

  it('answers faces: [] and count 0 for an image without faces', async () => {
    const res = await detect(file('noface', 'opencv_fruits.jpg'));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { faces: [], count: 0 });
  });

  it('verify: same person matches, different people do not (default threshold 0.4)', async () => {
    const same = await verify(file('identities', 'fr_barack_obama', 'obama.jpg'), file('identities', 'fr_barack_obama', 'obama2.jpg'));
    assert.equal(same.statusCode, 200);
    assert.equal(same.json().is_match, true);
    const diff = await verify(file('identities', 'fr_barack_obama', 'obama.jpg'), file('identities', 'fr_joe_biden', 'biden.jpg'));
    assert.equal(diff.statusCode, 200);
    const d = diff.json();
    assert.equal(d.is_match, false);
    assert.ok(d.similarity >= 0 && d.similarity < 0.4);
    assert.equal(d.face1.detection.landmarks.length, 5);
    assert.notEqual(d.face2.quality, null);
  });

  it('verify: no face in image2 is 422 NO_FACE naming image2', async () => {
    const res = await verify(file('identities', 'bbt_amy', 'amy1.png'), file('noface', 'opencv_home.jpg'));
    assert.equal(res.statusCode, 422);
    assertErrorShape(res.json(), 422, 'NO_FACE');
    assert.equal(res.json().field, 'image2');
  });
});
