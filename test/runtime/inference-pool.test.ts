import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { packageRoot } from '../../src/core/package-root.js';
import { readProfile } from '../../src/runtime/hw-profile.js';
import { inferenceLayout, InferencePool } from '../../src/runtime/inference-pool.js';
import { fillImageTensor, imageFeedSize, type ImageFeed } from '../../src/runtime/image-feed.js';
import type { WireTensor, WorkerModel } from '../../src/runtime/inference-worker.js';

const FILE = join(packageRoot(), 'models', 'antispoof_minifasnet_v2_scale2.7_80x80.onnx');
const log = pino({ level: 'silent' });
const profile = readProfile('x86-cpu');

/** A distinct input per run (its buffer is transferred), so results can be told apart. */
function feed(model: WorkerModel, value: number): WireTensor[] {
  return [{ name: model.inputNames[0]!, type: 'float32', data: new Float32Array(3 * 80 * 80).fill(value), dims: [1, 3, 80, 80] }];
}

describe('inference layout', () => {
  it('one worker per core up to 4, the cores shared out as intra-op threads; settings win', () => {
    assert.deepEqual(inferenceLayout(0, 0, 2), { cores: 2, workers: 2, intraOpThreads: 1 });
    assert.deepEqual(inferenceLayout(0, 0, 1), { cores: 1, workers: 1, intraOpThreads: 1 });
    assert.deepEqual(inferenceLayout(0, 0, 8), { cores: 8, workers: 4, intraOpThreads: 2 });
    assert.deepEqual(inferenceLayout(1, 0, 2), { cores: 2, workers: 1, intraOpThreads: 2 });
    assert.deepEqual(inferenceLayout(3, 0, 2), { cores: 2, workers: 3, intraOpThreads: 1 });
    assert.deepEqual(inferenceLayout(0, 4, 2), { cores: 2, workers: 2, intraOpThreads: 4 });
  });
});

describe('inference pool', () => {
  it('spreads concurrent runs over its workers, each answer going to its own caller', async () => {
    const pool = new InferencePool(2, log);
    try {
      const model = await pool.open('v2', FILE, profile, -1, { intraOpThreads: 1 });
      const single = new InferencePool(1, log);
      const reference = await single.open('v2', FILE, profile, -1, { intraOpThreads: 1 });
      const values = [0, 0.25, 0.5, 0.75, 1, -0.5, -1, 0.1];
      const expected: number[][] = [];
      for (const v of values) expected.push(Array.from((await reference.run(feed(reference, v)))[reference.outputNames[0]!]!.data as Float32Array));
      await single.close();
      const got = await Promise.all(values.map((v) => model.run(feed(model, v))));
      got.forEach((out, i) => {
        const data = Array.from(out[model.outputNames[0]!]!.data as Float32Array);
        data.forEach((x, j) => assert.ok(Math.abs(x - expected[i]![j]!) < 1e-5, `run ${i} output ${j}: ${x} vs ${expected[i]![j]}`));
      });
      const { runs, queued } = pool.stats();
      assert.equal(queued, 0);
      assert.equal(runs.length, 2);
      // 8 runs issued at once: both workers take some (each takes one at a time).
      assert.ok(
        runs.every((n) => n > 0),
        `runs per worker ${runs.join(', ')}`,
      );
      assert.equal(
        runs.reduce((a, b) => a + b, 0),
        values.length,
      );
    } finally {
      await pool.close();
    }
  });

  it('lets the models take turns: a run of one model does not wait behind all queued runs of another', async () => {
    const pool = new InferencePool(1, log);
    try {
      const a = await pool.open('a', FILE, profile, -1, { intraOpThreads: 1 });
      const b = await pool.open('b', FILE, profile, -1, { intraOpThreads: 1 });
      const done: string[] = [];
      const runs = [1, 2, 3, 4].map((n) => a.run(feed(a, n / 10)).then(() => done.push(`a${n}`)));
      runs.push(b.run(feed(b, 0.5)).then(() => done.push('b1')));
      await Promise.all(runs);
      // a1 was running when the rest queued; then a2, and b's turn before a3 and a4.
      assert.deepEqual(done, ['a1', 'a2', 'b1', 'a3', 'a4']);
      assert.equal(pool.stats().queued, 0);
    } finally {
      await pool.close();
    }
  });

  it('starts the next queued run before the caller of the finished one resumes', async () => {
    // Guards against a worker idling through the caller's own work on an answer: the pool
    // used to free the worker one step after handing the answer over.
    const pool = new InferencePool(1, log);
    try {
      const model = await pool.open('v2', FILE, profile, -1, { intraOpThreads: 1 });
      const seen: { queued: number; runs: number }[] = [];
      const first = model.run(feed(model, 0.1)).then(() => {
        const { queued, runs } = pool.stats();
        seen.push({ queued, runs: runs[0]! });
      });
      const second = model.run(feed(model, 0.2));
      await Promise.all([first, second]);
      assert.deepEqual(seen, [{ queued: 0, runs: 2 }], 'the second run was already on the worker when the first caller resumed');
    } finally {
      await pool.close();
    }
  });

  it('reduces an output in the worker: the argmax, maximum and kept columns of the whole output', async () => {
    const pool = new InferencePool(2, log);
    try {
      const model = await pool.open('v2', FILE, profile, -1, { intraOpThreads: 1 });
      const output = model.outputNames[0]!;
      const whole = (await model.run(feed(model, 0.3)))[output]!;
      const full = whole.data as Float32Array;
      const width = whole.dims[whole.dims.length - 1]!;
      const { outputs, reduced } = await model.runReduced(feed(model, 0.3), { output, keep: [2, 0] });
      assert.equal(outputs[output], undefined, 'the reduced output does not come back whole');
      assert.equal(reduced.rows, full.length / width);
      const best = full.indexOf(Math.max(...full.subarray(0, width)));
      assert.equal(reduced.argmax[0], best);
      assert.ok(Math.abs(reduced.max[0]! - full[best]!) < 1e-6);
      assert.deepEqual(Array.from(reduced.kept.subarray(0, 2)), [full[2], full[0]]);
      await assert.rejects(model.runReduced(feed(model, 0.3), { output, keep: [width] }), /outside the last axis/);
      await assert.rejects(model.runReduced(feed(model, 0.3), { output: 'nope', keep: [0] }), /not a float32 output/);
    } finally {
      await pool.close();
    }
  });

  it("fills an image input in the worker as the float feed would be, padding rewritten in its reused buffer, the caller's bytes kept", async () => {
    const pool = new InferencePool(1, log);
    try {
      const model = await pool.open('v2', FILE, profile, -1, { intraOpThreads: 1 });
      const output = model.outputNames[0]!;
      // Random bytes of a 60x70 image at (7, 3) in the 80x80 input, then the whole 80x80: the
      // second run reuses the first's buffer, and the third (padded again) must not see the second's pixels.
      const image = (w: number, h: number, x: number, y: number, seed: number): ImageFeed => {
        const rgb = new Uint8Array(w * h * 3).map((_, i) => (i * 7919 + seed * 104729) % 251);
        return { name: model.inputNames[0]!, rgb, width: w, height: h, dims: [1, 3, 80, 80], offsetX: x, offsetY: y, order: 'bgr', mean: 127, std: 128 };
      };
      for (const [i, feedImage] of [image(60, 70, 7, 3, 1), image(80, 80, 0, 0, 2), image(60, 70, 7, 3, 3)].entries()) {
        const bytes = feedImage.rgb.slice();
        const floats = fillImageTensor(feedImage, new Float32Array(imageFeedSize(feedImage)));
        const expected = (await model.run([{ name: feedImage.name, type: 'float32', data: floats, dims: feedImage.dims }]))[output]!.data as Float32Array;
        const got = (await model.runImage(feedImage))[output]!.data as Float32Array;
        assert.deepEqual(Array.from(got), Array.from(expected), `run ${i}`);
        assert.deepEqual(feedImage.rgb, bytes, `run ${i}: the caller's bytes are copied, not taken`);
      }
      const given = image(80, 80, 0, 0, 4);
      await model.runImage(given, true);
      assert.equal(given.rgb.byteLength, 0, 'bytes handed over are transferred');
      // A Buffer view of a larger chunk (as a camera's frame ring holds them): neither it nor the
      // chunk around it may be detached, whether or not the caller offers to hand it over.
      const chunk = Buffer.alloc(80 * 80 * 3 + 32, 9);
      for (const handOver of [false, true]) {
        const view = chunk.subarray(16, 16 + 80 * 80 * 3);
        await model.runImage({ ...image(80, 80, 0, 0, 6), rgb: view }, handOver);
        assert.equal(view.byteLength, 80 * 80 * 3, `a Buffer view is copied, not transferred (hand-over ${handOver})`);
        assert.equal(chunk.byteLength, 80 * 80 * 3 + 32);
      }
      await assert.rejects(model.runImage({ ...image(80, 80, 0, 0, 5), offsetX: 1 }), /does not fit/);
    } finally {
      await pool.close();
    }
  });

  // Guards: the assertion sat behind `if (model)`, so an open that failed any other way passed
  // without asserting anything. Either outcome of the race is now checked.
  it('closes while a model is still opening without aborting, and runs nothing after', async () => {
    const pool = new InferencePool(2, log);
    const opening = pool.open('v2', FILE, profile, -1);
    await new Promise((r) => setTimeout(r, 5));
    await pool.close();
    const outcome = await opening.then(
      (model) => ({ model }),
      (err: Error & { code?: string }) => ({ err }),
    );
    if ('err' in outcome) assert.equal(outcome.err.code, 'INFERENCE_UNAVAILABLE', `the open failed otherwise: ${outcome.err.message}`);
    else await assert.rejects(outcome.model.run(feed(outcome.model, 0)), (e: Error & { code?: string }) => e.code === 'INFERENCE_UNAVAILABLE');
  });
});
