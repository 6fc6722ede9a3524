import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { packageRoot } from '../../src/core/package-root.js';
import { freeSpatialInputDims } from '../../src/runtime/free-input-dims.js';
import { exposeOutputs } from '../../bench/lib/graph-outputs.js';

const YOLOX = join(packageRoot(), 'models', 'person_det_yolox_nano_416.onnx');

describe('detector feature maps as extra outputs (bench/lib/graph-outputs.ts)', () => {
  // bench/reid-separation.ts reads YOLOX's neck (tensor 956, stride 8) beside its boxes: the boxes must be the ones the daemon gets.
  it("returns the neck's stride-8 map beside YOLOX's unchanged boxes, at the frame's aspect", async () => {
    const plain = freeSpatialInputDims(readFileSync(YOLOX));
    const exposed = exposeOutputs(plain, ['956', '990']);
    const [a, b] = await Promise.all([ort.InferenceSession.create(plain, { intraOpNumThreads: 1 }), ort.InferenceSession.create(exposed, { intraOpNumThreads: 1 })]);
    const [h, w] = [256, 416];
    const input = new Float32Array(3 * h * w);
    // Not a flat image: a gradient with a bright block, so the heads produce varied values.
    for (let i = 0; i < input.length; i++) input[i] = (i % w) / 2 + (Math.floor(i / w) % h > 100 && i % w > 200 && i % w < 260 ? 120 : 0);
    const feed = { images: new ort.Tensor('float32', input, [1, 3, h, w]) };
    const [ra, rb] = [await a.run(feed), await b.run(feed)];
    assert.deepEqual(b.outputNames, ['output', '956', '990']);
    assert.deepEqual(rb['956']!.dims, [1, 64, h / 8, w / 8]);
    assert.deepEqual(rb['990']!.dims, [1, 128, h / 16, w / 16]);
    assert.deepEqual(Array.from(rb.output!.data as Float32Array), Array.from(ra.output!.data as Float32Array));
    await Promise.all([a.release(), b.release()]);
  });

  it('refuses a tensor no node produces and does not declare an output twice', async () => {
    const bytes = readFileSync(YOLOX);
    assert.throws(() => exposeOutputs(bytes, ['no-such-tensor']), /no node produces no-such-tensor/);
    const s = await ort.InferenceSession.create(exposeOutputs(bytes, ['output', '956', '956']), { intraOpNumThreads: 1 });
    assert.deepEqual(s.outputNames, ['output', '956']);
    await s.release();
  });
});
