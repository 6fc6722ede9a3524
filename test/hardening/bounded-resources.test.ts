import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { AdmissionGate, BusyError } from '../../src/core/admission.js';
import { PixelBudget } from '../../src/core/pixel-budget.js';
import { readJpegHeader, readPngHeader } from '../../src/core/image-header.js';
import { decodeImage } from '../../src/core/image-decode.js';
import { AppError } from '../../src/core/errors.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';
import { manyScanJpeg } from '../helpers/images.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('bounded resources', () => {
  it('admission gate: runs `concurrency`, queues `queue`, refuses the rest with BusyError (guards: unbounded queues)', async () => {
    const gate = new AdmissionGate('face', 1, 1, 60_000);
    const first = await gate.enter();
    let secondIn = false;
    const second = gate.enter().then((r) => {
      secondIn = true;
      return r;
    });
    await assert.rejects(gate.enter(), (err: unknown) => err instanceof BusyError && err.statusCode === 503 && err.retryAfterSeconds >= 1);
    await tick();
    assert.equal(secondIn, false);
    first();
    first(); // a second release of the same slot changes nothing
    const release2 = await second;
    assert.deepEqual({ running: gate.stats().running, waiting: gate.stats().waiting, refused: gate.stats().refused }, { running: 1, waiting: 0, refused: 1 });
    release2();
    assert.equal(gate.stats().running, 0);
  });

  it('admission gate: a wait past queue_wait_ms is refused with BusyError', async () => {
    const gate = new AdmissionGate('document', 1, 5, 50);
    const release = await gate.enter();
    await assert.rejects(gate.enter(), BusyError);
    assert.equal(gate.stats().waiting, 0);
    release();
  });

  it('pixel budget: decodes wait until their pixels fit; one image larger than the budget runs alone', async () => {
    const budget = new PixelBudget(100);
    const a = await budget.acquire(60);
    let bIn = false;
    const b = budget.acquire(60).then((r) => ((bIn = true), r));
    await tick();
    assert.equal(bIn, false);
    a();
    const rb = await b;
    let bigIn = false;
    const big = budget.acquire(500).then((r) => ((bigIn = true), r));
    await tick();
    assert.equal(bigIn, false);
    rb();
    const rbig = await big;
    assert.equal(budget.stats().in_flight, 500);
    rbig();
    assert.equal(budget.stats().in_flight, 0);
  });

  it('JPEG/PNG header reader agrees with libvips on every shared test image', async () => {
    let n = 0;
    for (const dir of ['multi', 'noface']) {
      for (const name of readdirSync(testdata('faces', dir))) {
        const buf = readFileSync(join(testdata('faces', dir), name));
        const h = name.endsWith('.png') ? readPngHeader(buf) : /\.jpe?g$/.test(name) ? readJpegHeader(buf) : undefined;
        if (h === undefined) continue;
        const meta = await sharp(buf).metadata();
        assert.ok(h, `${name}: no header`);
        assert.deepEqual([h.width, h.height], [meta.width, meta.height], name);
        assert.ok(h.scans >= 1 && h.scans <= 16, `${name}: ${h.scans} scans`);
        n++;
      }
    }
    assert.ok(n >= 5, `only ${n} images checked`);
    const progressive = await sharp(readFileSync(testdata('faces', 'multi', 'faceapi_bbt4.jpg')))
      .jpeg({ progressive: true })
      .toBuffer();
    const h = readJpegHeader(progressive)!;
    assert.equal(h.progressive, true);
    assert.ok(h.scans > 1 && h.scans <= 12, `${h.scans} scans`);
  });

  it('a progressive JPEG with 100 scans is refused with 413 JPEG_TOO_COMPLEX before decoding (guards: 0.9 s of CPU per 160 KB upload)', async () => {
    const bomb = await manyScanJpeg(100, 2048, 2048);
    assert.equal(readJpegHeader(bomb)!.scans, 100);
    const t0 = performance.now();
    await assert.rejects(decodeImage(bomb, { field: 'image', maxPixels: 40_000_000 }), (err: unknown) => err instanceof AppError && err.code === 'JPEG_TOO_COMPLEX' && err.statusCode === 413);
    const refusedMs = performance.now() - t0;
    const ok = await manyScanJpeg(10, 2048, 2048);
    const t1 = performance.now();
    const img = await decodeImage(ok, { field: 'image', maxPixels: 40_000_000 });
    const decodedMs = performance.now() - t1;
    assert.equal(img.width, 2048);
    // Refusing reads only the markers; decoding even a 10-scan file costs far more.
    assert.ok(refusedMs < decodedMs, `refused in ${refusedMs.toFixed(1)} ms, a 10-scan decode took ${decodedMs.toFixed(1)} ms`);
  });

  describe('through the app: one slot, no queue', () => {
    let t: TestApp;
    before(async () => {
      t = await testApp({ limits: { inference_concurrency: 1, inference_queue: 0 } } as never);
    });
    after(async () => t?.close());

    it('concurrent /detect beyond the slot answer 503 BUSY with Retry-After; slots come back afterwards (guards: no 503 ever)', async () => {
      const face = readFileSync(testdata('faces', 'identities', 'bbt_amy', 'amy1.png'));
      const send = () => t.app.inject({ method: 'POST', url: '/api/v1/detect', ...multipart([{ name: 'image', file: face }]) });
      const answers = await Promise.all([send(), send(), send(), send()]);
      const busy = answers.filter((a) => a.statusCode === 503);
      assert.ok(
        answers.some((a) => a.statusCode === 200),
        'one must be admitted',
      );
      assert.ok(busy.length >= 1, `statuses ${answers.map((a) => a.statusCode).join(',')}`);
      for (const b of busy) {
        assertErrorShape(b.json(), 503, 'BUSY');
        assert.ok(Number(b.headers['retry-after']) >= 1);
      }
      for (let i = 0; i < 3; i++) assert.equal((await send()).statusCode, 200, 'the slot must be released after each answer');
      // Other endpoint classes and non-inference routes are not held by the face gate.
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).statusCode, 200);
    });

    it('an answer refused for bad input releases its slot too', async () => {
      const bad = () => t.app.inject({ method: 'POST', url: '/api/v1/detect', ...multipart([{ name: 'image', file: Buffer.from('nope') }]) });
      for (let i = 0; i < 3; i++) assert.equal((await bad()).statusCode, 415);
    });
  });
});
