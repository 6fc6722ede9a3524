import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { decodeImage, type RgbImage } from '../../src/core/image-decode.js';
import { captureProblem, identicalFraction, mirroredOf, sampleFrame } from '../../src/modules/liveness/capture-evidence.js';
import type { ChallengeType } from '../../src/modules/liveness/challenges.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { clipFrames, scriptedDraw } from './frames.js';
import { addNoise, rng, slideInner, squeezeTurn, type FaceGeom } from '../../bench/lib/attack-edits.js';

/** /detect's box and points for FRONTAL, rounded. */
const GEOM: FaceGeom = {
  bbox: [210, 23, 293, 138],
  kps: [
    [233, 68],
    [272, 69],
    [252, 94],
    [236, 109],
    [268, 110],
  ],
};

// The capture checks of issue 22 on real frames of the Hamilton clip (Lin-Manuel Miranda).
const FRONTAL = 150;
const RIGHT = 133; // turned to his right, yaw -30
const NEXT = 151; // the frame after FRONTAL

const BOX: [number, number, number, number] = [260, 60, 360, 180];
const noisy = (img: RgbImage, seed: number): RgbImage => {
  const out = Buffer.from(img.data);
  let s = seed;
  for (let i = 0; i < out.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    out[i] = Math.max(0, Math.min(255, out[i]! + ((s >>> 16) % 5) - 2));
  }
  return { data: out, width: img.width, height: img.height };
};

let t: TestApp;
let now = Date.UTC(2026, 0, 1);
const png = new Map<number, Buffer>();
let frontal: RgbImage;

before(async () => {
  t = await testApp({ liveness: { abuse_max_failures: 0, min_challenges: 1, min_head_challenges: 0 } });
  t.app.liveness.deps.clock = () => now;
  for (const [n, b] of clipFrames([FRONTAL, RIGHT, NEXT])) png.set(n, b);
  frontal = await decodeImage(png.get(FRONTAL)!, { field: 'image', maxPixels: 1e7 });
});
after(async () => {
  await t.close();
});

async function session(order: ChallengeType[]): Promise<string> {
  t.app.liveness.deps.random = scriptedDraw(order);
  const r = await t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions?num_challenges=${order.length}` });
  return r.json().session_id as string;
}
async function send(id: string, file: Buffer, gapMs = 200) {
  now += gapMs;
  const body = multipart([{ name: 'image', file, filename: 'f.png', contentType: 'image/png' }]);
  const r = await t.app.inject({ method: 'POST', url: `/api/v1/liveness/sessions/${id}/frame`, payload: body.payload, headers: body.headers });
  return r;
}
const info = async (id: string) => (await t.app.inject({ method: 'GET', url: `/api/v1/liveness/sessions/${id}` })).json();
const encode = (img: RgbImage) =>
  sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .png()
    .toBuffer();

describe('capture evidence (unit)', () => {
  it('a frame is fully identical to itself, and a camera-noise copy is not', () => {
    const a = sampleFrame(frontal, BOX);
    assert.equal(identicalFraction(a, sampleFrame(frontal, BOX, a.stride)), 1);
    assert.ok(identicalFraction(a, sampleFrame(noisy(frontal, 7), BOX, a.stride)) < 0.3);
    assert.equal(captureProblem(sampleFrame(frontal, BOX, a.stride), [a]), 'static_image');
    assert.equal(captureProblem(sampleFrame(noisy(frontal, 7), BOX, a.stride), [a]), null);
  });

  it('a frame of another size is a broken capture', () => {
    const a = sampleFrame(frontal, BOX);
    const small: RgbImage = { data: frontal.data.subarray(0, 320 * 360 * 3), width: 320, height: 360 };
    assert.equal(captureProblem(sampleFrame(small, [100, 60, 200, 180], a.stride), [a]), 'capture_discontinuity');
  });
});

describe('capture evidence through the API (real frames)', () => {
  // Guards issue 22: "paint the eyes, then send the original again" passed BLINK.
  it('a frame re-sent unchanged is not judged: a turn shown twice from the same picture cannot pass on the repeat', async () => {
    const id = await session(['TURN_RIGHT']);
    assert.equal((await send(id, png.get(FRONTAL)!)).json().passed, false);
    assert.equal((await send(id, png.get(RIGHT)!)).json().passed, true, 'the real turn passes');
    const again = await session(['TURN_RIGHT']);
    await send(again, png.get(RIGHT)!);
    await send(again, png.get(FRONTAL)!);
    // Same pixels as the first frame of this session: not judged, so the turn is not re-measured from it.
    const r = await send(again, png.get(RIGHT)!);
    assert.equal(r.json().passed, false, r.body);
  });

  // Guards issue 22: two frames of a challenge 2 ms apart; a whole session in 86 ms.
  it('frames faster than a camera sends them are rejected; enough of them fail the session (implausible_timing)', async () => {
    const id = await session(['TURN_RIGHT', 'SMILE']);
    await send(id, png.get(FRONTAL)!);
    const burst = await send(id, png.get(RIGHT)!, 2);
    assert.equal(burst.json().passed, false, 'a turn 2 ms after the neutral frame does not pass');
    for (let i = 0; i < 2; i++) await send(id, await encode(noisy(frontal, i)), 2);
    const s = await info(id);
    assert.equal(s.state, 'failed');
    assert.equal(s.failure_reason, 'implausible_timing');
    assert.equal(s.liveness_score, 0);
  });

  it('a frame of another resolution fails the session (capture_discontinuity)', async () => {
    const id = await session(['SMILE', 'BLINK']);
    await send(id, png.get(FRONTAL)!);
    const resized = await sharp(png.get(NEXT)!).resize(600, 338).png().toBuffer();
    const r = await send(id, resized);
    assert.equal(r.json().state, 'failed');
    assert.equal((await info(id)).failure_reason, 'capture_discontinuity');
  });

  // Guards issue 22: a mirrored photo reads as the opposite turn (the `mirror` species passed 2 of
  // 10 head movements on seed 2211).
  it('a frame mirrored against the previous one fails the session (capture_discontinuity); a camera frame does not', async () => {
    const a = sampleFrame(frontal, BOX);
    const next = await decodeImage(png.get(NEXT)!, { field: 'image', maxPixels: 1e7 });
    assert.equal(mirroredOf(a, sampleFrame(next, BOX, a.stride)), false);
    const id = await session(['TURN_RIGHT']);
    await send(id, png.get(FRONTAL)!);
    const r = await send(id, await sharp(png.get(FRONTAL)!).flop().png().toBuffer());
    assert.equal(r.json().state, 'failed');
    assert.equal((await info(id)).failure_reason, 'capture_discontinuity');
  });

  it("a completed session reports a coarse liveness_score; the frame result stays the spec's eight fields", async () => {
    const id = await session(['TURN_RIGHT']);
    await send(id, png.get(FRONTAL)!);
    const r = await send(id, png.get(RIGHT)!);
    assert.equal(r.json().state, 'completed');
    assert.equal(Object.keys(r.json()).length, 8);
    const s = await info(id);
    assert.ok(s.liveness_score > 0.5 && s.liveness_score <= 1, String(s.liveness_score));
    assert.equal(Math.round(s.liveness_score * 10), s.liveness_score * 10, 'steps of 0.1');
  });

  it('a challenge timing out on still images fails as static_image', async () => {
    const id = await session(['SMILE']);
    await send(id, png.get(FRONTAL)!);
    for (let i = 0; i < 3; i++) await send(id, png.get(FRONTAL)!);
    now += 6000;
    const s = await info(id);
    assert.equal(s.state, 'failed');
    assert.equal(s.failure_reason, 'static_image');
  });

  // Guards issue 22: a photo squeezed about the nose (turns) or its inner face slid up or down
  // (looks), with fresh noise on every frame so no pixel repeats, read as a head movement to the
  // landmark model and passed about half the challenges it tried (the `noise` species).
  it('the noise species: squeezed and slid frames with fresh noise complete no turn or look', async () => {
    const rand = rng(2211);
    const reasons: string[] = [];
    for (const type of ['TURN_LEFT', 'TURN_RIGHT', 'LOOK_UP', 'LOOK_DOWN'] as const) {
      const id = await session([type]);
      await send(id, await encode(addNoise(frontal, 4, rand)), 150);
      for (const dir of [1, -1] as const) {
        for (const s of [0.9, 1.3, 1.8]) {
          const edit = type.startsWith('TURN') ? squeezeTurn(frontal, GEOM, dir, s) : slideInner(frontal, GEOM, 0, dir * 0.13 * s);
          const r = await send(id, await encode(addNoise(edit, 4, rand)), 150);
          if (r.statusCode === 200) assert.equal(r.json().passed, false, `${type} ${dir} ${s}`);
        }
      }
      now += 11_000;
      const end = await info(id);
      assert.equal(end.state, 'failed');
      reasons.push(end.failure_reason);
    }
    assert.ok(
      reasons.every((r) => r === 'flat_motion' || r === 'challenge_timeout'),
      reasons.join(),
    );
    // The landmarks read the asked movement on some of them (seed 2211: three of four): the
    // outline rule, not the angle, is what stopped those.
    assert.ok(reasons.includes('flat_motion'), reasons.join());
  });
});
