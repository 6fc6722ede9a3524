import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { decodeImage } from '../../src/core/image-decode.js';
import { FaceMeasurer, type MeasuredFace } from '../../src/modules/liveness/face-measurer.js';
import { frameFaces } from '../../src/modules/liveness/face-source.js';
import { cropToImage, roiFromFace } from '../../src/modules/liveness/face-roi.js';
import { fromHalf, toHalf } from '../../src/modules/liveness/float16.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { testdata } from '../helpers/paths.js';

describe('float16 bits', () => {
  it('round-trips the values the landmark model sees and returns', () => {
    for (const v of [0, 1, -1, 0.5, 0.25, 127.25, 255.5, -3.75, 65504]) assert.equal(fromHalf(toHalf(v)), v, String(v));
    assert.ok(Math.abs(fromHalf(toHalf(0.1)) - 0.1) < 1e-4);
    assert.ok(Math.abs(fromHalf(toHalf(1 / 255)) - 1 / 255) < 2e-6, 'a pixel step in [0,1]');
    assert.equal(toHalf(1e6), 0x7c00, 'overflow is infinity');
    assert.equal(fromHalf(toHalf(1e-8)), 0, 'underflow is zero');
    assert.ok(Math.abs(fromHalf(toHalf(3e-6)) - 3e-6) < 1e-7, 'subnormals');
  });
});

describe('ROI geometry', () => {
  it('maps crop corners and centre back onto the rotated square', () => {
    const face = {
      bbox: [100, 100, 200, 200] as [number, number, number, number],
      landmarks: [
        [120, 140],
        [180, 200],
      ] as [number, number][],
    };
    const roi = roiFromFace(face, 1.5);
    assert.equal(roi.side, 150);
    assert.ok(Math.abs(roi.angle - Math.PI / 4) < 1e-12, 'the eye line is at 45 degrees');
    const [cx, cy] = cropToImage(roi, 256, 128, 128);
    assert.ok(Math.abs(cx - 150) < 1e-9 && Math.abs(cy - 150) < 1e-9);
    const [x, y] = cropToImage(roi, 256, 256, 128); // middle of the crop's right edge
    assert.ok(Math.abs(x - (150 + 75 * Math.SQRT1_2)) < 1e-9 && Math.abs(y - (150 + 75 * Math.SQRT1_2)) < 1e-9);
  });
});

describe('face measurer on real photos', () => {
  let t: TestApp;
  let measurer: FaceMeasurer;

  before(async () => {
    t = await testApp();
    measurer = new FaceMeasurer(t.app.face);
  });
  after(async () => {
    await t.close();
  });

  async function measure(file: string, flip = false): Promise<MeasuredFace> {
    let buf = readFileSync(testdata(file));
    if (flip) buf = await sharp(buf).rotate().flop().png().toBuffer();
    const img = await decodeImage(buf, { field: 'image', maxPixels: 40e6 });
    const [face] = await frameFaces(t.app.face, img);
    assert.ok(face, file);
    return measurer.measure(img, face);
  }

  it("yaw flips sign on the mirror image; positive yaw is the user's own left", async () => {
    // obama1.jpg: Obama turned towards the right of the picture, i.e. to his own left.
    const a = await measure('faces/identities/fr_barack_obama/obama1.jpg');
    const b = await measure('faces/identities/fr_barack_obama/obama1.jpg', true);
    assert.ok(a.measurable && b.measurable);
    assert.ok(a.measures.yaw > 12, `yaw ${a.measures.yaw}`);
    assert.ok(b.measures.yaw < -12, `mirrored yaw ${b.measures.yaw}`);
    assert.ok(Math.abs(a.measures.yaw + b.measures.yaw) < 4, 'the mirror gives the opposite angle');
    assert.ok(Math.abs(a.measures.pitch - b.measures.pitch) < 4, 'and the same pitch');
  });

  it('reads a smile and an open mouth from the blendshapes; neutral faces read neither', async () => {
    const smile = await measure('faces/identities/fr_barack_obama/obama.jpg');
    const neutral = await measure('faces/identities/fr_barack_obama/obama1.jpg');
    const talking = await measure('faces/identities/fr_lin_manuel_miranda/lin-manuel-miranda.png');
    assert.ok(smile.measures.smile > 0.8, `smile ${smile.measures.smile}`);
    assert.ok(neutral.measures.smile < 0.1 && neutral.measures.jawOpen < 0.1);
    assert.ok(talking.measures.smile < 0.1);
    for (const m of [smile, neutral, talking]) {
      assert.ok(m.presence > 0.9 && m.eyeFit < 0.1, "landmarks agree with the detector's eye points");
      assert.ok(Math.max(m.measures.blinkLeft, m.measures.blinkRight) < 0.45, 'open eyes are not read as closed');
    }
  });
});
