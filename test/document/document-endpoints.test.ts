import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { loadOpenCv } from '../../src/modules/document/opencv.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart, type Part } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

const file = (...p: string[]) => readFileSync(testdata(...p));
const readFirst = (dir: string) => readdirSync(testdata(...dir.split('/'))).sort()[0]!;
const TD3_PNG = file('documents', 'mrz', 'passporteye_tests_passport-td3.png');
const TD3_LINES = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

async function png(width: number, height: number, rgb = { r: 255, g: 255, b: 255 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: rgb } })
    .png()
    .toBuffer();
}

/**
 * The passport page warped as if photographed at an angle on a dark desk: corners
 * pulled in unevenly on a larger canvas (a perspective, not just a rotation).
 */
async function angledPhoto(src: Buffer): Promise<Buffer> {
  const cv = await loadOpenCv();
  const { data, info } = await sharp(src).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const W = 1800;
  const H = 1300;
  const img = new cv.Mat(info.height, info.width, cv.CV_8UC3);
  img.data.set(data);
  const from = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, info.width, 0, info.width, info.height, 0, info.height]);
  const to = cv.matFromArray(4, 1, cv.CV_32FC2, [260, 170, 1560, 250, 1500, 1150, 210, 1080]);
  const m = cv.getPerspectiveTransform(from, to);
  const out = new cv.Mat();
  cv.warpPerspective(img, out, m, new cv.Size(W, H), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(40, 45, 50));
  const buf = Buffer.from(out.data);
  [img, from, to, m, out].forEach((x) => x.delete());
  return sharp(buf, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

describe('document endpoints (real PP-OCRv4 models)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  const post = async (url: string, parts: Part[]) => {
    const { payload, headers } = multipart(parts);
    return t.app.inject({ method: 'POST', url, payload, headers });
  };
  const image = (buf: Buffer): Part[] => [{ name: 'image', file: buf }];

  it('reports document_detector loaded with its three models and their licence, and the module healthy', async () => {
    const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as {
      name: string;
      loaded: boolean;
      reason?: string;
      models?: { name: string; license: string; loaded: boolean }[];
    }[];
    const c = models.find((m) => m.name === 'document_detector')!;
    assert.equal(c.loaded, true, c.reason);
    assert.deepEqual(c.models!.map((m) => m.name).sort(), ['ocr_cls_ppocr_mobile_v2', 'ocr_det_ppocrv4', 'ocr_rec_ppocrv4']);
    for (const m of c.models!) assert.match(m.license, /Apache-2\.0/);
    const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
    assert.equal(health.modules.document, true, health.details.document);
    // OCR-B is installed for the tests (.ci/apt-packages.txt): the MRZ glyph classifier is on, and says so.
    assert.match(health.details.document, /MRZ glyph classifier on/);
  });

  it('/mrz reads a TD3 passport into the spec fields with all check digits valid', async () => {
    const res = await post('/api/v1/documents/mrz', image(TD3_PNG));
    assert.equal(res.statusCode, 200, res.body);
    const { field_confidence, warnings, ...spec } = res.json() as Record<string, unknown> & { field_confidence: Record<string, number>; warnings: string[] };
    // Beyond the spec: a certainty per field and the warnings (none on this clean scan).
    assert.deepEqual(Object.keys(field_confidence).sort(), ['date_of_birth', 'document_code', 'document_number', 'expiry_date', 'given_names', 'issuing_country', 'nationality', 'sex', 'surname']);
    for (const v of Object.values(field_confidence)) assert.ok(v >= 0 && v <= 1);
    assert.ok(Array.isArray(warnings));
    assert.deepEqual(spec, {
      mrz_type: 'TD3',
      layout: 'ICAO',
      document_code: 'P<',
      document_number: 'L898902C3',
      surname: 'ERIKSSON',
      given_names: 'ANNA MARIA',
      nationality: 'UTO',
      date_of_birth: '740812',
      sex: 'F',
      expiry_date: '120415',
      issuing_country: 'UTO',
      raw_mrz: TD3_LINES,
      check_digits_valid: true,
    });
  });

  it('/mrz reads a TD1 identity card (3 x 30) and a TD2 card (2 x 36)', async () => {
    const td1 = (await post('/api/v1/documents/mrz', image(file('documents', 'mrz', 'passporteye_100_id-mac.jpg'))))!.json();
    assert.equal(td1.mrz_type, 'TD1');
    assert.deepEqual(td1.raw_mrz, ['I<MAC12281507<0<<<<<<<<0212300', '6106225M1212307<<<<<<<<<<<<<<6', 'CHONG<<KA<KEONG<<<<<<<<<<<<<<<']);
    assert.equal(td1.document_number, '12281507');
    assert.equal(td1.check_digits_valid, true);
    const td2 = (await post('/api/v1/documents/mrz', image(file('documents', 'mrz', 'fastmrz_td2.jpg'))))!.json();
    assert.equal(td2.mrz_type, 'TD2');
    // An ICAO TD2, never the French identity card's 2 x 36 layout.
    assert.equal(td2.layout, 'ICAO');
    assert.equal(td2.document_number, 'D23145890');
    assert.equal(td2.check_digits_valid, true);
  });

  it('/mrz reads the names of a 275-pixel-wide passport whose rows are 7 pixels high', async () => {
    // Read once, the names row of this scan comes back with M as N and fillers as K; the
    // extra reads (other scale, the upload's own pixels) and their average fix it.
    const res = await post('/api/v1/documents/mrz', image(file('documents', 'mrz', 'passporteye_25_pass-uto.jpg')));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().raw_mrz, TD3_LINES);
  });

  it('/mrz parses a document whose printed check digits do not hold, with check_digits_valid false', async () => {
    // Old US permanent resident card: document-number and composite digits fail as printed.
    const res = await post('/api/v1/documents/mrz', image(file('documents', 'mrz', 'passporteye_33_id-usa.jpg')));
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.surname, 'CRITTENDEN');
    assert.equal(body.date_of_birth, '491004');
    assert.equal(body.check_digits_valid, false);
  });

  it('/mrz answers 422 NO_MRZ for a card without an MRZ, a blank page and a tiny image', async () => {
    for (const buf of [file('documents', 'mrz', 'fastmrz_nomrz.jpg'), await png(800, 600), await png(12, 9)]) {
      const res = await post('/api/v1/documents/mrz', image(buf));
      assert.equal(res.statusCode, 422, res.body);
      assertErrorShape(res.json(), 422, 'NO_MRZ');
    }
  });

  it('/mrz reads passports turned 90, 180 and 270 degrees, and one turned by its EXIF orientation', async () => {
    for (const angle of [90, 180, 270]) {
      const turned = await sharp(TD3_PNG).rotate(angle).png().toBuffer();
      const res = await post('/api/v1/documents/mrz', image(turned));
      assert.equal(res.statusCode, 200, `${angle}: ${res.body}`);
      assert.deepEqual(res.json().raw_mrz, TD3_LINES, `${angle} degrees`);
    }
    // Pixels stored turned 90 degrees counter-clockwise, EXIF orientation 6 says "turn clockwise to view".
    const stored = await sharp(TD3_PNG).rotate(-90).jpeg({ quality: 92 }).withMetadata({ orientation: 6 }).toBuffer();
    const res = await post('/api/v1/documents/mrz', image(stored));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().raw_mrz, TD3_LINES);
  });

  it('/mrz downscales a huge photo instead of rejecting it', async () => {
    const huge = await sharp(TD3_PNG).resize(5336, 3520).jpeg({ quality: 85 }).toBuffer(); // 18.8 MP
    const res = await post('/api/v1/documents/mrz', image(huge));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().raw_mrz, TD3_LINES);
  });

  it('/scan of a document photographed at an angle finds its outline, rectifies it and reads the MRZ and portrait', async () => {
    const res = await post('/api/v1/documents/scan', image(await angledPhoto(TD3_PNG)));
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.detected, true);
    assert.equal(body.has_face, true);
    assert.ok(body.mrz, 'mrz is null');
    assert.deepEqual(body.mrz.raw_mrz, TD3_LINES);
    assert.equal(body.mrz.check_digits_valid, true);
    // /scan carries the same per-field certainty and warnings as /mrz (issue 15).
    assert.equal(typeof body.mrz.field_confidence.surname, 'number');
    assert.ok(Array.isArray(body.mrz.warnings));
    assert.match(body.ocr.full_text, /ERIKSSON/);
    // Boxes are in the uploaded photo's pixels, inside the warped page.
    for (const l of body.ocr.lines) {
      const [x1, y1, x2, y2] = l.bbox;
      assert.ok(x1 >= 150 && x2 <= 1650 && y1 >= 100 && y2 <= 1250 && x1 < x2 && y1 < y2, JSON.stringify(l));
    }
  });

  it('/scan of a card without an MRZ answers mrz null (no 422), and emits document_scanned without personal data', async () => {
    const res = await post('/api/v1/documents/scan', image(file('documents', 'mrz', 'fastmrz_nomrz.jpg')));
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.mrz, null);
    assert.equal(typeof body.detected, 'boolean');
    assert.equal(typeof body.has_face, 'boolean');
    assert.ok(body.ocr.lines.length > 0);

    const passport = await post('/api/v1/documents/scan', image(TD3_PNG));
    assert.equal(passport.statusCode, 200);
    const events = (await t.app.inject({ method: 'GET', url: '/api/v1/events/recent?event_type=document_scanned' })).json() as {
      source: string;
      data: Record<string, unknown>;
    }[];
    const last = events[0]!;
    assert.equal(last.source, 'document');
    assert.deepEqual(Object.keys(last.data).sort(), ['check_digits_valid', 'detected', 'document_kind', 'expired', 'has_face', 'has_mrz', 'issuing_country', 'mrz_type', 'ocr_lines']);
    assert.equal(last.data.issuing_country, 'UTO');
    assert.equal(last.data.expired, true);
    const json = JSON.stringify(events);
    for (const personal of ['ERIKSSON', 'ANNA', 'L898902C3', '740812', 'UTOPIAN']) assert.ok(!json.includes(personal), `${personal} leaked`);
  });

  it('/scan and /ocr of a blank page answer empty results, not errors', async () => {
    const blank = await png(640, 480);
    const scan = (await post('/api/v1/documents/scan', image(blank))).json();
    assert.deepEqual(scan, { detected: false, ocr: { full_text: '', lines: [], confidence: 0 }, mrz: null, has_face: false });
    const ocr = await post('/api/v1/documents/ocr', image(await png(3, 2, { r: 0, g: 0, b: 0 })));
    assert.equal(ocr.statusCode, 200);
    assert.deepEqual(ocr.json(), { full_text: '', lines: [], confidence: 0 });
  });

  it('/ocr reads printed text in reading order with boxes and confidences', async () => {
    const res = await post('/api/v1/documents/ocr', image(file('documents', 'ocr', 'passporteye_tesseract-test2.png')));
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const rows = body.full_text.split('\n');
    assert.match(rows[0], /This is a lot of 12 point text to test the/);
    assert.match(rows[rows.length - 1], /brown dog jumped over the lazy fox\.?$/);
    assert.ok(body.confidence > 0.8 && body.confidence <= 1);
    for (const l of body.lines) {
      assert.equal(l.bbox.length, 4);
      assert.ok(l.bbox[0] >= 0 && l.bbox[2] <= 640 && l.bbox[1] >= 0 && l.bbox[3] <= 480);
      assert.ok(l.confidence >= 0 && l.confidence <= 1);
    }
  });

  it('/verify matches the passport portrait to another photo of the same specimen and rejects a stranger', async () => {
    const same = await post('/api/v1/documents/verify', [
      { name: 'document', file: TD3_PNG },
      { name: 'selfie', file: file('documents', 'mrz', 'passporteye_100_pass-uto.jpg') },
    ]);
    assert.equal(same.statusCode, 200, same.body);
    const body = same.json();
    assert.equal(body.is_match, true);
    assert.ok(body.similarity >= 0.4 && body.similarity <= 1);
    for (const f of [body.face1, body.face2]) {
      assert.equal(f.quality, null);
      assert.equal(f.demographics, null);
      assert.equal(f.liveness, null);
      assert.equal(f.has_embedding, true);
      assert.equal(f.detection.bbox.length, 4);
    }
    // The portrait sits on the left half of the page.
    assert.ok(body.face1.detection.bbox[2] < 1334 / 2);

    const stranger = await post('/api/v1/documents/verify', [
      { name: 'document', file: TD3_PNG },
      { name: 'selfie', file: file('faces', 'identities', 'fr_barack_obama', readFirst('faces/identities/fr_barack_obama')) },
      { name: 'threshold', value: '0.4' },
    ]);
    assert.equal(stranger.statusCode, 200, stranger.body);
    assert.equal(stranger.json().is_match, false);
  });

  it('/verify answers 422 NO_FACE naming the document or the selfie without a face', async () => {
    const blank = await png(600, 400);
    const noDoc = await post('/api/v1/documents/verify', [
      { name: 'document', file: blank },
      { name: 'selfie', file: TD3_PNG },
    ]);
    assertErrorShape(noDoc.json(), 422, 'NO_FACE');
    assert.equal(noDoc.json().field, 'document');
    const noSelfie = await post('/api/v1/documents/verify', [
      { name: 'document', file: TD3_PNG },
      { name: 'selfie', file: file('faces', 'noface', 'faceapi_white.png') },
    ]);
    assertErrorShape(noSelfie.json(), 422, 'NO_FACE');
    assert.equal(noSelfie.json().field, 'selfie');
  });

  it('bad input: missing fields, text instead of a file, non-images, truncated files, bad threshold', async () => {
    const cases: [string, Part[], number, string][] = [
      ['/api/v1/documents/mrz', [], 400, 'MISSING_FIELD'],
      ['/api/v1/documents/scan', [{ name: 'image', value: 'not a file' }], 400, 'MISSING_FIELD'],
      ['/api/v1/documents/ocr', [{ name: 'image', file: Buffer.from('%PDF-1.4 hello') }], 415, 'UNSUPPORTED_IMAGE_TYPE'],
      ['/api/v1/documents/mrz', [{ name: 'image', file: TD3_PNG.subarray(0, 4000) }], 400, 'INVALID_IMAGE'],
      ['/api/v1/documents/verify', [{ name: 'document', file: TD3_PNG }], 400, 'MISSING_FIELD'],
      [
        '/api/v1/documents/verify',
        [
          { name: 'document', file: TD3_PNG },
          { name: 'selfie', file: TD3_PNG },
          { name: 'threshold', value: '2' },
        ],
        400,
        'INVALID_FIELD',
      ],
    ];
    for (const [url, parts, status, code] of cases) {
      const res = await post(url, parts);
      assert.equal(res.statusCode, status, `${url} ${res.body}`);
      assertErrorShape(res.json(), status, code);
    }
    const notMultipart = await t.app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload: { image: 'x' } });
    assertErrorShape(notMultipart.json(), 400);
  });
});

describe('document module disabled', () => {
  it('answers 503 MODULE_DISABLED and reports the module off in health', async () => {
    const t = await testApp({ document: { enabled: false } });
    try {
      const { payload, headers } = multipart([{ name: 'image', file: TD3_PNG }]);
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload, headers });
      assertErrorShape(res.json(), 503, 'MODULE_DISABLED');
      const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.equal(health.modules.document, false);
      const models = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean; reason?: string }[];
      const c = models.find((m) => m.name === 'document_detector')!;
      assert.equal(c.loaded, false);
      assert.match(c.reason!, /disabled/);
    } finally {
      await t.close();
    }
  });
});
