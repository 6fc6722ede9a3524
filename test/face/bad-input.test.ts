import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart, type Part } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';
import { pngBombHeader, solidPng } from '../helpers/images.js';

const file = (...p: string[]) => readFileSync(testdata('faces', ...p));

describe('face: bad input gets a documented 4xx and the daemon keeps serving', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  const post = (url: string, parts: Part[]) => t.app.inject({ method: 'POST', url, ...multipart(parts) });
  const detect = (img: Buffer) => post('/api/v1/detect', [{ name: 'image', file: img }]);
  const face = file('identities', 'bbt_amy', 'amy1.png');

  it('missing image field: 400 MISSING_FIELD naming it', async () => {
    const res = await post('/api/v1/detect', [{ name: 'picture', file: face }]);
    assert.equal(res.statusCode, 400);
    assertErrorShape(res.json(), 400, 'MISSING_FIELD');
    assert.equal(res.json().field, 'image');
    const v = await post('/api/v1/verify', [{ name: 'image1', file: face }]);
    assert.equal(v.statusCode, 400);
    assertErrorShape(v.json(), 400, 'MISSING_FIELD');
    assert.equal(v.json().field, 'image2');
  });

  it('a body that is not multipart: 400 NOT_MULTIPART', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/detect', payload: { image: 'x' } });
    assert.equal(res.statusCode, 400);
    assertErrorShape(res.json(), 400, 'NOT_MULTIPART');
  });

  it('non-image bytes: 415 UNSUPPORTED_IMAGE_TYPE', async () => {
    const res = await detect(Buffer.from('%PDF-1.4 this is not an image at all'));
    assert.equal(res.statusCode, 415);
    assertErrorShape(res.json(), 415, 'UNSUPPORTED_IMAGE_TYPE');
  });

  it('truncated JPEG: 400 INVALID_IMAGE', async () => {
    const jpeg = file('multi', 'faceapi_bbt4.jpg');
    const res = await detect(jpeg.subarray(0, Math.floor(jpeg.length / 2)));
    assert.equal(res.statusCode, 400);
    assertErrorShape(res.json(), 400, 'INVALID_IMAGE');
  });

  it('pixel bomb (20000x20000 PNG header): 413 IMAGE_TOO_LARGE before decoding', async () => {
    const res = await detect(pngBombHeader(20000, 20000));
    assert.equal(res.statusCode, 413);
    assertErrorShape(res.json(), 413, 'IMAGE_TOO_LARGE');
  });

  it('1x1 image: detect answers no faces, verify answers 422 NO_FACE', async () => {
    const tiny = await solidPng(1, 1);
    const res = await detect(tiny);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { faces: [], count: 0 });
    const v = await post('/api/v1/verify', [
      { name: 'image1', file: tiny },
      { name: 'image2', file: face },
    ]);
    assert.equal(v.statusCode, 422);
    assertErrorShape(v.json(), 422, 'NO_FACE');
    assert.equal(v.json().field, 'image1');
  });

  it('threshold out of range or not a number: 400 INVALID_FIELD naming threshold', async () => {
    for (const threshold of ['1.5', '-0.1', 'abc']) {
      const res = await post('/api/v1/verify', [
        { name: 'image1', file: face },
        { name: 'image2', file: face },
        { name: 'threshold', value: threshold },
      ]);
      assert.equal(res.statusCode, 400, threshold);
      assertErrorShape(res.json(), 400, 'INVALID_FIELD');
      assert.equal(res.json().field, 'threshold');
    }
  });

  it('threshold at the edges 0 and 1 is accepted and decides is_match', async () => {
    const parts = (threshold: string): Part[] => [
      { name: 'image1', file: face },
      { name: 'image2', file: file('identities', 'bbt_amy', 'amy2.png') },
      { name: 'threshold', value: threshold },
    ];
    const lo = await post('/api/v1/verify', parts('0'));
    const hi = await post('/api/v1/verify', parts('1'));
    assert.equal(lo.statusCode, 200);
    assert.equal(lo.json().is_match, true);
    assert.equal(hi.json().is_match, hi.json().similarity >= 1);
  });

  it('still serves a good request after all of the above', async () => {
    const res = await detect(face);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().count, 1);
    const health = await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' });
    assert.equal(health.json().modules.face, true);
  });
});
