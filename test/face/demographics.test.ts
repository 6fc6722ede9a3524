import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeImage, type RgbImage } from '../../src/core/image-decode.js';
import { ageFromDistribution, DEMOGRAPHICS_MODEL, estimateDemographics, type FaceGeometry } from '../../src/modules/face/demographics.js';
import { packageRoot } from '../../src/core/package-root.js';
import { modelManifest } from '../../src/runtime/model-manifest.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

/** Geometry SCRFD-500m reports for the 150x150 identity crops, rounded (their faces sit alike). */
const TIGHT_CROP_FACE: FaceGeometry = {
  box: [12, 2, 140, 148],
  kps: [
    [46, 44],
    [103, 43],
    [75, 79],
    [54, 105],
    [101, 103],
  ],
};

const photo = (...p: string[]) => readFileSync(testdata('faces', ...p));
const detect = (t: TestApp, img: Buffer) => t.app.inject({ method: 'POST', url: '/api/v1/detect', ...multipart([{ name: 'image', file: img }]) });
const load = async (file: string): Promise<RgbImage> => decodeImage(readFileSync(testdata('faces/identities', file)), { field: 'image', maxPixels: 40_000_000 });

describe('demographics (HSE FaceRes converted from TFJS)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  it('/admin/models reports demographics loaded, with its model file and licence', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' });
    const c = (res.json() as { name: string; module: string; loaded: boolean; reason?: string; models?: { name: string; license: string; provider?: string }[] }[]).find(
      (m) => m.name === 'demographics',
    )!;
    assert.equal(c.module, 'face');
    assert.equal(c.loaded, true, c.reason);
    assert.deepEqual(
      c.models?.map((m) => m.name),
      [DEMOGRAPHICS_MODEL],
    );
    assert.match(c.models![0]!.license, /vladmandic\/human/);
    assert.equal(c.models![0]!.provider, 'cpu');
  });

  it('tells women from men on real faces, with integer ages in a plausible range', async () => {
    const model = t.app.face.model(DEMOGRAPHICS_MODEL);
    const cases: [string, 'M' | 'F'][] = [
      ['bbt_penny/penny1.png', 'F'],
      ['bbt_amy/amy2.png', 'F'],
      ['bbt_bernadette/bernadette3.png', 'F'],
      ['bbt_raj/raj1.png', 'M'],
      ['bbt_sheldon/sheldon2.png', 'M'],
      ['bbt_howard/howard4.png', 'M'],
    ];
    for (const [file, gender] of cases) {
      const [d] = await estimateDemographics(model, await load(file), [TIGHT_CROP_FACE]);
      assert.equal(d!.gender, gender, file);
      assert.ok(Number.isInteger(d!.age) && d!.age >= 18 && d!.age <= 60, `${file}: age ${d!.age}`);
    }
  });

  it('a batch of faces gives each face the answer it gets alone, in order', async () => {
    const model = t.app.face.model(DEMOGRAPHICS_MODEL);
    const penny = await load('bbt_penny/penny2.png');
    const raj = await load('bbt_raj/raj2.png');
    const alone = [...(await estimateDemographics(model, penny, [TIGHT_CROP_FACE])), ...(await estimateDemographics(model, raj, [TIGHT_CROP_FACE]))];
    // Two faces of one image: the same face twice and one far off the image (black crop).
    const both = await estimateDemographics(model, penny, [TIGHT_CROP_FACE, { box: [5000, 5000, 5100, 5100] }, TIGHT_CROP_FACE]);
    assert.deepEqual(both[0], alone[0]);
    assert.deepEqual(both[2], alone[0]);
    assert.equal(both.length, 3);
    assert.notEqual(alone[0]!.gender, alone[1]!.gender);
    assert.deepEqual(await estimateDemographics(model, penny, []), []);
  });

  it('/detect gives every face {age: int, gender: M|F}: Kit Harington M, Rose Leslie F in one photo', async () => {
    const res = await detect(t, photo('multi', 'fr_kit_with_rose.jpg'));
    assert.equal(res.statusCode, 200);
    const faces = res.json().faces as { detection: { bbox: number[] }; demographics: { age: number; gender: string } }[];
    assert.equal(faces.length, 2);
    // Kit stands on the right of this photo, Rose on the left.
    const [left, right] = [...faces].sort((a, b) => a.detection.bbox[0]! - b.detection.bbox[0]!);
    assert.equal(left!.demographics.gender, 'F');
    assert.equal(right!.demographics.gender, 'M');
    for (const f of faces) assert.deepEqual(Object.keys(f.demographics).sort(), ['age', 'gender']);
    assert.match(res.headers['server-timing'] as string, /demographics;dur=/);
  });

  it('/verify faces carry detection, quality and liveness but no demographics (the spec: verify faces carry detection and quality)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      ...multipart([
        { name: 'image1', file: photo('identities', 'fr_rose_leslie', 'img1.jpg') },
        { name: 'image2', file: photo('identities', 'fr_joe_biden', 'biden.jpg') },
      ]),
    });
    assert.equal(res.statusCode, 200);
    for (const face of [res.json().face1, res.json().face2]) {
      assert.equal(face.demographics, null);
      assert.ok(face.quality && face.liveness && face.detection);
    }
  });

  it('demographics: false (what document verify asks for) leaves it null', async () => {
    const img = await load('bbt_penny/penny1.png');
    const [off] = await t.app.face.analyze(img, { demographics: false });
    assert.equal(off!.result.demographics, null);
    const [on] = await t.app.face.analyze(img);
    assert.equal(on!.result.demographics?.gender, 'F');
  });

  it('age is the expected value of the age distribution, rounded', () => {
    const p = new Float32Array(200);
    p[130] = 0.5; // second face: bins 30 and 40 at 0.5 each
    p[140] = 0.5;
    p[20] = 1; // first face: all mass on 20
    assert.equal(ageFromDistribution(p, 0), 20);
    assert.equal(ageFromDistribution(p, 100), 35);
  });
});

describe('demographics off or unavailable', () => {
  const demographicsComponent = async (t: TestApp) =>
    ((await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean; reason?: string }[]).find((m) => m.name === 'demographics')!;

  it('face.enable_demographics: false leaves the model unloaded, says so, and faces carry null', async () => {
    const t = await testApp({ face: { enable_demographics: false } });
    try {
      const c = await demographicsComponent(t);
      assert.equal(c.loaded, false);
      assert.match(c.reason ?? '', /enable_demographics: false/);
      assert.equal(t.app.vigil.models.tryGet(DEMOGRAPHICS_MODEL), undefined);
      const res = await detect(t, photo('identities', 'bbt_penny', 'penny1.png'));
      assert.equal(res.json().faces[0].demographics, null);
    } finally {
      await t.close();
    }
  });

  it('a missing model file: /detect still answers (demographics null), /admin/models and health say why', async () => {
    // A models folder with every file but the demographics model.
    const dir = mkdtempSync(join(tmpdir(), 'vigil-models-'));
    const skip = modelManifest().get(DEMOGRAPHICS_MODEL)!.file;
    for (const f of readdirSync(join(packageRoot(), 'models'))) if (f.endsWith('.onnx') && f !== skip) symlinkSync(join(packageRoot(), 'models', f), join(dir, f));
    const t = await testApp({ face: { models_dir: dir } });
    try {
      const c = await demographicsComponent(t);
      assert.equal(c.loaded, false);
      assert.match(c.reason ?? '', /model file missing/);
      const res = await detect(t, photo('identities', 'bbt_penny', 'penny1.png'));
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().faces[0].demographics, null);
      const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.equal(health.modules.face, true);
      assert.match(health.details.face, /demographics unavailable \(model file missing/);
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
