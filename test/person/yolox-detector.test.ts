import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import pino from 'pino';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { ModelRegistry, type LoadedModel } from '../../src/runtime/model-registry.js';
import { readProfile } from '../../src/runtime/hw-profile.js';
import { packageRoot } from '../../src/core/package-root.js';
import { decodePersons, iou, letterboxFeed, nms, YoloxPersonDetector } from '../../src/modules/person/yolox-detector.js';
import { fillImageTensor, imageFeedSize } from '../../src/runtime/image-feed.js';
import { ImageFeedArena } from '../../src/runtime/image-feed-arena.js';
import { PERSON_MODEL } from '../../src/modules/person/person-service.js';
import { parseHeader } from '../../src/modules/video/ppm-stream.js';
import { testdata } from '../helpers/paths.js';

/** Frame `index` of a video, scaled into 416x416 as the camera pipeline does. */
function frameAt(video: string, index: number) {
  const ppm = execFileSync(ffmpeg.path, [
    '-v',
    'error',
    '-i',
    video,
    '-vf',
    `select=eq(n\\,${index}),scale=w=416:h=416:force_original_aspect_ratio=decrease:flags=area`,
    '-frames:v',
    '1',
    '-f',
    'image2pipe',
    '-c:v',
    'ppm',
    '-',
  ]);
  const h = parseHeader(ppm);
  if (h === 'incomplete') throw new Error('no frame');
  return { data: ppm.subarray(h.length), width: h.width, height: h.height };
}

describe('YOLOX person detector', () => {
  let registry: ModelRegistry;
  let detector: YoloxPersonDetector;
  let shapedRegistry: ModelRegistry;
  let shapedModel: LoadedModel;
  before(async () => {
    registry = new ModelRegistry(join(packageRoot(), 'models'), readProfile('x86-cpu'), -1, pino({ level: 'silent' }));
    const model = await registry.load(PERSON_MODEL);
    assert.ok(model, registry.status(PERSON_MODEL)?.reason);
    detector = new YoloxPersonDetector(model);
    shapedRegistry = new ModelRegistry(join(packageRoot(), 'models'), readProfile('x86-cpu'), -1, pino({ level: 'silent' }), 1);
    const free = await shapedRegistry.load(PERSON_MODEL, { freeInputDims: true });
    assert.ok(free, shapedRegistry.status(PERSON_MODEL)?.reason);
    shapedModel = free;
  });
  after(async () => {
    await registry.close();
    await shapedRegistry.close();
  });

  // Guards person.detector_input: the input shaped to the frame (free dims) must find what the square finds, and more pixels must not lose anyone.
  it('shaped to the frame (416x320 for 4:3, or a 640 long side) finds the people the 416 square finds', async () => {
    const frame = frameAt(testdata('video', 'PETS09-S2L1', 'vtest.avi'), 0);
    const square = (await detector.detect(frame, 0.1)).filter((d) => d.score >= 0.5);
    const shaped = new YoloxPersonDetector(shapedModel, { longSide: 416 });
    assert.equal(shaped.shapedToFrame, true);
    for (const d of [shaped, new YoloxPersonDetector(shapedModel, { longSide: 640 })]) {
      const got = (await d.detect(frame, 0.1)).filter((x) => x.score >= 0.5);
      for (const s of square) assert.ok(Math.max(...got.map((g) => iou(g, s))) >= 0.7, `long side ${d.inputSize}: lost the person at ${s.x1.toFixed(0)},${s.y1.toFixed(0)}`);
    }
    assert.throws(() => new YoloxPersonDetector(shapedModel, { longSide: 400 }), /multiple of 32/);
  });

  it('finds the annotated people of PETS09-S2L1 frame 1 (gt.txt)', async () => {
    const frame = frameAt(testdata('video', 'PETS09-S2L1', 'vtest.avi'), 0);
    const dets = (await detector.detect(frame, 0.1)).filter((d) => d.score >= 0.5);
    const s = 768 / frame.width;
    // gt.txt frame 1, conf 1 rows: x, y, w, h in the 768x576 original
    const gt = [
      [499, 158, 31.03, 75.17],
      [258, 219, 32.913, 88.702],
      [633, 242, 42.338, 81.074],
    ];
    for (const [x, y, w, h] of gt) {
      const g = { x1: x! / s, y1: y! / s, x2: (x! + w!) / s, y2: (y! + h!) / s, score: 1 };
      const best = Math.max(...dets.map((d) => iou(d, g)));
      assert.ok(best >= 0.5, `gt box at ${x},${y}: best IoU ${best.toFixed(2)}`);
    }
    assert.ok(dets.length <= gt.length + 2, `${dets.length} confident detections`);
  });

  it('resizes frames larger than the input box itself', async () => {
    const small = frameAt(testdata('video', 'PETS09-S2L1', 'vtest.avi'), 0);
    const big = await import('sharp').then((m) =>
      m
        .default(small.data, { raw: { width: small.width, height: small.height, channels: 3 } })
        .resize(832, 624)
        .raw()
        .toBuffer(),
    );
    const dets = (await detector.detect({ data: big, width: 832, height: 624 }, 0.5)).sort((a, b) => a.x1 - b.x1);
    const ref = (await detector.detect(small, 0.5)).sort((a, b) => a.x1 - b.x1);
    assert.equal(dets.length, ref.length);
    dets.forEach((d, i) => assert.ok(Math.abs(d.x1 / 2 - ref[i]!.x1) < 3));
  });

  it('letterbox: BGR planes, top-left, padded with 114, the same floats from the worker SIMD fill', () => {
    const out = fillImageTensor(letterboxFeed({ data: Buffer.from([10, 20, 30, 40, 50, 60]), width: 2, height: 1 }, 4, 4, 'images'), new Float32Array(3 * 4 * 4));
    assert.deepEqual([out[0], out[16], out[32]], [30, 20, 10]);
    assert.deepEqual([out[1], out[17], out[33]], [60, 50, 40]);
    assert.equal(out[2], 114);
    assert.equal(out[47], 114);
    assert.throws(() => letterboxFeed({ data: Buffer.alloc(75), width: 5, height: 5 }, 4, 4, 'images'), /does not fit/);
    assert.throws(() => letterboxFeed({ data: Buffer.alloc(80), width: 5, height: 5 }, 8, 8, 'images'), /bytes/);
    // A frame wide enough for the kernel's 16-pixel passes, as the inference worker fills it.
    const frame = { data: Buffer.from(Array.from({ length: 37 * 5 * 3 }, (_, i) => (i * 7) % 256)), width: 37, height: 5 };
    const feed = letterboxFeed(frame, 48, 8, 'images');
    const lease = new ImageFeedArena().lease('yolox', feed);
    assert.ok(lease);
    assert.deepEqual(Array.from(lease.data), Array.from(fillImageTensor(feed, new Float32Array(imageFeedSize(feed)))));
    assert.equal(lease.data[47], 114);
    lease.release();
  });

  it('decodes the raw head: grid offsets, exp sizes, score = obj x person, scale undone, NMS', () => {
    const size = 64;
    const anchors = (size / 8) ** 2 + (size / 16) ** 2 + (size / 32) ** 2;
    const raw = new Float32Array(anchors * 85);
    // anchor (gx=2, gy=1) of stride 8: centre (2.5*8, 1.5*8), w = e^1 * 8
    const a = 1 * 8 + 2;
    raw.set([0.5, 0.5, 1, Math.log(2), 0.9, 0.8], a * 85);
    // a duplicate one cell over with a lower score is suppressed
    raw.set([-0.5, 0.5, 1, Math.log(2), 0.9, 0.6], (a + 1) * 85);
    const d = decodePersons(raw, size, size, 0.5, 1000, 1000, 0.1);
    assert.equal(d.length, 1);
    assert.ok(Math.abs(d[0]!.score - 0.72) < 1e-6);
    assert.ok(Math.abs(d[0]!.x1 - (20 - (Math.E * 8) / 2) / 0.5) < 1e-3);
    assert.ok(Math.abs(d[0]!.y2 - (12 + 8) / 0.5) < 1e-3);
    assert.throws(() => decodePersons(new Float32Array(85), size, size, 1, 10, 10, 0.1), /anchors/);
    assert.equal(
      nms(
        [
          { x1: 0, y1: 0, x2: 10, y2: 10, score: 0.5 },
          { x1: 1, y1: 1, x2: 10, y2: 10, score: 0.9 },
        ],
        0.45,
      ).length,
      1,
    );
  });
});
