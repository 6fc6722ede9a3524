import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { decodeImage } from '../../src/core/image-decode.js';
import { readMultipart, requireFile, numberField } from '../../src/core/multipart-form.js';
import { assertErrorShape } from '../helpers/app.js';
import { encodeBmp } from '../helpers/bmp.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

const MAX_PIXELS = 4_000_000;

/** The shared intake behind every upload endpoint, exercised through a real route. */
describe('image intake (multipart + decode)', () => {
  let app: FastifyInstance;
  let jpeg: Buffer;
  before(async () => {
    const config = loadConfig({
      env: {},
      overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', max_upload_bytes: 2 * 1024 * 1024, max_image_pixels: MAX_PIXELS } },
    });
    app = await buildApp(config);
    app.post('/test/intake', async (request) => {
      const form = await readMultipart(request);
      const img = await decodeImage(requireFile(form, 'image'), { field: 'image', maxPixels: config.server.max_image_pixels });
      const threshold = numberField(form, 'threshold', { default: 0.4, min: 0, max: 1 });
      return { width: img.width, height: img.height, bytes: img.data.length, threshold };
    });
    await app.ready();
    jpeg = readFileSync(testdata('faces', 'multi', 'fr_kit_with_rose.jpg'));
  });
  after(async () => app.close());

  const post = (parts: Parameters<typeof multipart>[0]) => app.inject({ method: 'POST', url: '/test/intake', ...multipart(parts) });

  it('decodes a real JPEG to RGB', async () => {
    const res = await post([{ name: 'image', file: jpeg }]);
    assert.equal(res.statusCode, 200, res.body);
    const b = res.json();
    assert.equal(b.bytes, b.width * b.height * 3);
  });

  it('missing file field: 400 MISSING_FIELD naming the field', async () => {
    const res = await post([{ name: 'other', file: jpeg }]);
    assert.equal(res.statusCode, 400);
    assertErrorShape(res.json(), 400, 'MISSING_FIELD');
    assert.match(res.json().message, /"image"/);
  });

  it('not multipart at all: 4xx with the error shape', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/intake', payload: { image: 'x' } });
    assert.ok([400, 415].includes(res.statusCode), String(res.statusCode));
    assertErrorShape(res.json(), res.statusCode);
  });

  it('non-image bytes: 415 UNSUPPORTED_IMAGE_TYPE', async () => {
    const res = await post([{ name: 'image', file: Buffer.from('%PDF-1.4 definitely not an image') }]);
    assertErrorShape(res.json(), 415, 'UNSUPPORTED_IMAGE_TYPE');
  });

  // Issue 21: phones and photo libraries send WebP, AVIF, GIF and TIFF, often under a .jpg name.
  describe('every still format sharp decodes here, decided by content', () => {
    const red = () => sharp({ create: { width: 24, height: 16, channels: 3, background: '#ff0000' } });
    const encoders: [string, () => Promise<Buffer>][] = [
      ['webp', () => red().webp({ lossless: true }).toBuffer()],
      ['avif', () => red().avif({ lossless: true }).toBuffer()],
      ['gif', () => red().gif().toBuffer()],
      ['tiff', () => red().tiff().toBuffer()],
    ];
    for (const [format, encode] of encoders) {
      it(`${format} named photo.jpg with an image/jpeg type decodes to its pixels`, async () => {
        const file = await encode();
        const res = await post([{ name: 'image', file, filename: 'photo.jpg', contentType: 'image/jpeg' }]);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual([res.json().width, res.json().height], [24, 16]);
        const img = await decodeImage(file, { field: 'image', maxPixels: MAX_PIXELS });
        assert.ok(img.data[0]! > 240 && img.data[1]! < 16 && img.data[2]! < 16, `${format}: first pixel ${[...img.data.subarray(0, 3)]}`);
      });
    }

    it('an animated GIF gives its first frame', async () => {
      const frame = (colour: string) =>
        sharp({ create: { width: 16, height: 8, channels: 3, background: colour } })
          .png()
          .toBuffer();
      const gif = await sharp([await frame('#0000ff'), await frame('#ff0000')], { join: { animated: true } })
        .gif()
        .toBuffer();
      const img = await decodeImage(gif, { field: 'image', maxPixels: MAX_PIXELS });
      assert.deepEqual([img.width, img.height], [16, 8]);
      assert.ok(img.data[2]! > 240 && img.data[0]! < 16, `first pixel ${[...img.data.subarray(0, 3)]}`);
    });

    it('the pixel limit holds for the new formats too: 413 IMAGE_TOO_LARGE', async () => {
      const big = await sharp({ create: { width: 2100, height: 2000, channels: 3, background: '#888' } })
        .webp({ quality: 10 })
        .toBuffer();
      assertErrorShape((await post([{ name: 'image', file: big }])).json(), 413, 'IMAGE_TOO_LARGE');
    });

    it('HEIC (HEVC) is named in its 415; SVG and PDF are refused', async () => {
      // An ISO-BMFF ftyp box with the heic brand: what an iPhone photo starts with.
      const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64)]);
      const res = await post([{ name: 'image', file: heic }]);
      assertErrorShape(res.json(), 415, 'UNSUPPORTED_IMAGE_TYPE');
      assert.match(res.json().message, /HEIC/);
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
      assertErrorShape((await post([{ name: 'image', file: svg, filename: 'x.png', contentType: 'image/png' }])).json(), 415, 'UNSUPPORTED_IMAGE_TYPE');
    });

    // Document scanners and passport readers write BMP, often under a .jpg name; libvips cannot read it.
    describe('BMP', () => {
      // Three columns and two rows of distinct colours: a width whose rows need padding, and an
      // order that shows any flip or channel swap.
      const colours: [number, number, number][] = [
        [255, 0, 0],
        [0, 255, 0],
        [0, 0, 255],
        [250, 250, 10],
        [10, 250, 250],
        [120, 60, 30],
      ];
      const variants: [string, Parameters<typeof encodeBmp>[0]][] = [
        ['24-bit, bottom-up', { width: 3, height: 2, rgb: colours }],
        ['24-bit, top-down', { width: 3, height: 2, rgb: colours, topDown: true }],
        ['8-bit with a palette', { width: 3, height: 2, rgb: colours, paletted: true }],
      ];
      for (const [name, spec] of variants) {
        it(`${name}, named scan.jpg, decodes to its pixels in order`, async () => {
          const file = encodeBmp(spec);
          const res = await post([{ name: 'image', file, filename: 'scan.jpg', contentType: 'image/jpeg' }]);
          assert.equal(res.statusCode, 200, res.body);
          const img = await decodeImage(file, { field: 'image', maxPixels: MAX_PIXELS });
          assert.deepEqual([img.width, img.height], [3, 2]);
          assert.deepEqual([...img.data], colours.flat());
        });
      }

      it('a BMP past the pixel limit: 413 IMAGE_TOO_LARGE from its header, before any pixel is decoded', async () => {
        const header = encodeBmp({ width: 1, height: 1, rgb: [[0, 0, 0]] });
        header.writeInt32LE(5000, 18);
        header.writeInt32LE(5000, 22);
        assertErrorShape((await post([{ name: 'image', file: header }])).json(), 413, 'IMAGE_TOO_LARGE');
      });

      it('a truncated BMP: 400 INVALID_IMAGE, and the next one decodes', async () => {
        const file = encodeBmp({ width: 64, height: 64, rgb: Array.from({ length: 64 * 64 }, () => [9, 9, 9] as [number, number, number]) });
        assertErrorShape((await post([{ name: 'image', file: file.subarray(0, 200) }])).json(), 400, 'INVALID_IMAGE');
        assert.equal((await post([{ name: 'image', file: encodeBmp(variants[0]![1]) }])).statusCode, 200);
      });

      it('an OS/2 bitmap (12-byte header) is refused: 415 UNSUPPORTED_IMAGE_TYPE', async () => {
        const os2 = encodeBmp(variants[0]![1]);
        os2.writeUInt32LE(12, 14);
        assertErrorShape((await post([{ name: 'image', file: os2 }])).json(), 415, 'UNSUPPORTED_IMAGE_TYPE');
      });
    });

    it('a truncated WebP: 400 INVALID_IMAGE', async () => {
      const webp = await sharp(jpeg).webp().toBuffer();
      assertErrorShape((await post([{ name: 'image', file: webp.subarray(0, Math.floor(webp.length / 2)) }])).json(), 400, 'INVALID_IMAGE');
    });
  });

  it('truncated JPEG: 400 INVALID_IMAGE', async () => {
    const res = await post([{ name: 'image', file: jpeg.subarray(0, Math.floor(jpeg.length / 2)) }]);
    assertErrorShape(res.json(), 400, 'INVALID_IMAGE');
  });

  it('empty file: 400 INVALID_IMAGE', async () => {
    assertErrorShape((await post([{ name: 'image', file: Buffer.alloc(0) }])).json(), 400, 'INVALID_IMAGE');
  });

  it('upload over max_upload_bytes: 413 FILE_TOO_LARGE', async () => {
    const big = Buffer.concat([jpeg, Buffer.alloc(3 * 1024 * 1024)]);
    const res = await post([{ name: 'image', file: big }]);
    assertErrorShape(res.json(), 413, 'FILE_TOO_LARGE');
  });

  it('decompression bomb (tiny PNG, huge canvas): 413 IMAGE_TOO_LARGE before decoding', async () => {
    const bomb = await sharp({ create: { width: 5000, height: 5000, channels: 3, background: '#000' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    assert.ok(bomb.length < 200_000, `bomb is ${bomb.length} bytes`);
    const res = await post([{ name: 'image', file: bomb }]);
    assertErrorShape(res.json(), 413, 'IMAGE_TOO_LARGE');
  });

  it('PNG with alpha, grayscale and 1x1 images become 3-channel RGB', async () => {
    const alpha = await sharp({ create: { width: 20, height: 10, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const grey = await sharp(jpeg).greyscale().png().toBuffer();
    const tiny = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
      .jpeg()
      .toBuffer();
    for (const file of [alpha, grey, tiny]) {
      const res = await post([{ name: 'image', file }]);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().bytes, res.json().width * res.json().height * 3);
    }
  });

  it('applies EXIF orientation (a 6 = rotate 90 deg image comes out upright)', async () => {
    const landscape = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#123' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const img = await decodeImage(landscape, { field: 'image', maxPixels: MAX_PIXELS });
    assert.deepEqual([img.width, img.height], [20, 40]);
  });

  it('numeric fields are validated: 400 INVALID_FIELD naming the field', async () => {
    const res = await post([
      { name: 'image', file: jpeg },
      { name: 'threshold', value: '1.5' },
    ]);
    assertErrorShape(res.json(), 400, 'INVALID_FIELD');
    assert.match(res.json().message, /threshold/);
    const nan = await post([
      { name: 'image', file: jpeg },
      { name: 'threshold', value: 'abc' },
    ]);
    assertErrorShape(nan.json(), 400, 'INVALID_FIELD');
  });

  it('a malformed multipart body is a 400, and the app keeps serving', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/test/intake',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      payload: '--xyz\r\nContent-Disposition: form-data; name="image"; filename="a"\r\n\r\nabc',
    });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode} ${res.body}`);
    assertErrorShape(res.json(), res.statusCode);
    assert.equal((await post([{ name: 'image', file: jpeg }])).statusCode, 200);
  });
});
