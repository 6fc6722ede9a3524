import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import type { VigilEvent } from '../../src/core/event-types.js';
import { decodeImage } from '../../src/core/image-decode.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

const file = (...p: string[]) => readFileSync(testdata('faces', ...p));

describe('face: /detect and /verify on the real models', () => {
  let t: TestApp;
  before(async () => {
    // 16 requests at once below test answers under concurrency, not admission control: a queue
    // deep enough, and a wait long enough, that none is refused with 503 BUSY (test/hardening
    // covers the refusals; at load average 24 the default 10 s wait ran out for the last ones).
    t = await testApp({ limits: { inference_queue: 64, queue_wait_ms: 300_000 } } as never);
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
    assert.deepEqual(
      sizes,
      [...sizes].sort((a: number, b: number) => b - a),
    );
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

  it('grayscale PNG and 32-bit RGBA PNG both give one face with landmarks', async () => {
    for (const img of [file('identities', 'bbt_amy', 'amy1.png'), file('variants', 'fr_obama_32bit.png')]) {
      const res = await detect(img);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().count, 1);
      assert.equal(res.json().faces[0].detection.landmarks.length, 5);
    }
  });

  it('EXIF-rotated JPEG: coordinates are in the upright image and landmarks sit on the face', async () => {
    // silentface_image_T1.jpg stores 640x480 pixels with orientation 6 (upright: 480x640).
    const exif = file('pad', 'silentface_image_T1.jpg');
    const upright = await sharp(exif).rotate().jpeg({ quality: 95 }).toBuffer();
    const a = (await detect(exif)).json().faces[0].detection;
    const b = (await detect(upright)).json().faces[0].detection;
    const tol = 0.05 * b.face_size;
    a.landmarks.forEach(([x, y]: number[], i: number) => {
      assert.ok(Math.abs(x! - b.landmarks[i][0]) < tol && Math.abs(y! - b.landmarks[i][1]) < tol, `landmark ${i} off the face`);
    });
    const [le, re, nose, ml, mr] = a.landmarks as number[][];
    assert.ok(le![1]! < nose![1]! && re![1]! < nose![1]! && nose![1]! < ml![1]! && nose![1]! < mr![1]!, 'face is not upright');
    assert.ok(a.bbox[2] <= 480 && a.bbox[3] <= 640);
  });

  it('a 3840x2880 photo is detected at reduced scale but answered in its own pixel coordinates', async () => {
    const small = file('variants', 'fr_obama_small.jpg'); // 320x240
    const big = await sharp(small).resize(3840, 2880).jpeg().toBuffer();
    const s = (await detect(small)).json().faces[0].detection;
    const b = (await detect(big)).json().faces[0].detection;
    for (let i = 0; i < 4; i++) assert.ok(Math.abs(b.bbox[i] / 12 - s.bbox[i]) < 0.08 * s.face_size, `bbox[${i}] ${b.bbox[i]} vs ${s.bbox[i]} x 12`);
  });

  it('a face filling a large image is still found (second pass at 320)', async () => {
    const res = await detect(file('pad', 'doubango_deepfake.jpg'));
    assert.equal(res.json().count, 1);
    assert.ok(res.json().faces[0].detection.face_size > 500);
  });

  it('minFaceUpscale finds the small faces of a tiny group photo that the native size misses', async () => {
    const tiny = await sharp(file('multi', 'faceapi_bbt3.jpg')).resize(60).png().toBuffer(); // 60x39, five faces
    const img = await decodeImage(tiny, { field: 'image', maxPixels: 1e8 });
    const native = await t.app.face.detect(img);
    const upscaled = await t.app.face.detect(img, { minFaceUpscale: true });
    assert.ok(native.length < 5, `native found ${native.length}`);
    assert.equal(upscaled.length, 5);
    for (const f of upscaled) assert.ok(f.box[2] <= 60 && f.box[3] <= 39, "box not in the tiny image's coordinates");
  });

  it('publishes face_detected with the documented payload, and nothing when no face is found', async () => {
    const seen: VigilEvent[] = [];
    t.app.vigil.bus.subscribe('face-test', (e) => {
      seen.push(e);
    });
    try {
      await detect(file('multi', 'fr_two_people.jpg'));
      await detect(file('noface', 'opencv_home.jpg'));
      const events = seen.filter((e) => e.type === 'face_detected');
      assert.equal(events.length, 1);
      const e = events[0]!;
      assert.equal(e.source, 'face');
      assert.equal(e.camera_id, null);
      const data = e.data as { origin: string; count: number; faces: { bbox: number[]; confidence: number; face_size: number; is_live: boolean | null }[] };
      assert.equal(data.origin, 'detect');
      assert.equal(data.count, 2);
      assert.equal(data.faces[0]!.bbox.length, 4);
      assert.equal(typeof data.faces[0]!.is_live, 'boolean');
    } finally {
      t.app.vigil.bus.unsubscribeOwner('face-test');
    }
  });

  it('16 concurrent requests all complete with the same answers as one at a time', async () => {
    const images = [file('multi', 'faceapi_bbt4.jpg'), file('pad', 'silentface_image_T1.jpg'), file('identities', 'bbt_raj', 'raj1.png'), file('noface', 'opencv_fruits.jpg')];
    const sequential: number[] = [];
    for (const img of images) sequential.push((await detect(img)).json().count);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => detect(images[i % images.length]!)));
    const batchMs = performance.now() - t0;
    delay.disable();
    results.forEach((r, i) => {
      assert.equal(r.statusCode, 200);
      assert.equal(r.json().count, sequential[i % images.length]);
    });
    // Guards the inference worker: onnxruntime-node runs models on the calling thread. With
    // in-thread inference this test saw a 617 ms stall, and 16 queued detector+recognizer
    // runs held the loop for 49% of their batch. The bound is relative because wall-clock
    // stalls scale with the load of the shared CI box.
    const maxMs = delay.max / 1e6;
    assert.ok(maxMs < 0.15 * batchMs, `event loop blocked for ${maxMs.toFixed(0)} ms of a ${batchMs.toFixed(0)} ms batch`);
  });

  it('/admin/models: detector, recognizer and liveness loaded, with the default models', async () => {
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean; models?: { name: string }[] }[];
    const by = new Map(list.map((m) => [m.name, m]));
    for (const n of ['face_detector', 'face_recognizer', 'liveness']) assert.equal(by.get(n)!.loaded, true, n);
    assert.deepEqual(
      by.get('face_recognizer')!.models!.map((m) => m.name),
      ['face_rec_faceplugin_512d'],
    );
    assert.deepEqual(
      by.get('face_detector')!.models!.map((m) => m.name),
      ['face_det_scrfd_500m'],
    );
  });
});
