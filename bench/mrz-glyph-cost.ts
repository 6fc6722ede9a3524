// What the MRZ glyph classifier costs an MRZ read, measured in one run on one box: generated
// documents (fresh seed, printed) are detected once, then their zone is read by two readers on the
// app's own loaded models, one with the templates of every installed template font (OCR-B and the
// common monospace faces) and one without, in alternating order. The
// glyph stage's own time is taken from the reader's trace (it runs on the main thread); the reads'
// wall times give the with/without ratio. A busy box slows both alike; only the ratios count.
// Run: node --import tsx bench/mrz-glyph-cost.ts [--n 20] [--seed N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { decodeImage } from '../src/core/image-decode.js';
import type { VigilContext } from '../src/core/context.js';
import { MrzReader } from '../src/modules/document/mrz-reader.js';
import { OcrEngine, workingCopy } from '../src/modules/document/ocr-engine.js';
import { renderTemplateFonts } from '../src/modules/document/ocrb-templates.js';
import { loadOpenCv } from '../src/modules/document/opencv.js';
import { loadDictionary, OCR_MODELS } from '../src/modules/document/plugin.js';
import { generatedDocument } from '../test/fixtures/mrz-docs/render.js';
import { machineLine } from './lib/stats.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '20' }, seed: { type: 'string' } } });
const N = Number(values.n);
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
const app = await buildApp(loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } }));
await app.ready();
const vigil = (app as unknown as { vigil: VigilContext }).vigil;
const dictionary = await loadDictionary(vigil.models, vigil.config.document.models_dir);
const engine = new OcrEngine(await loadOpenCv(), { det: vigil.models.get(OCR_MODELS.det).runner, rec: vigil.models.get(OCR_MODELS.rec).runner }, dictionary);
const templates = await renderTemplateFonts();
if (templates.length === 0) throw new Error('no template font is installed (apt-get install fonts-ocr-b)');
let glyphMs = 0;
const withGlyphs = new MrzReader(
  engine,
  (msg) => {
    const m = /^glyphs ([\d.]+) ms/.exec(msg);
    if (m) glyphMs += Number(m[1]);
  },
  templates,
);
const without = new MrzReader(engine);

console.log(machineLine());
console.log(`MRZ glyph stage cost: ${N} generated documents, seed ${SEED} (replay: --n ${N} --seed ${SEED}); templates: ${templates.map((t) => t.family).join(', ')}`);
let tWith = 0;
let tWithout = 0;
let zones = 0;
const perDoc: number[] = [];
for (let i = 0; i < N; i++) {
  const { doc } = await generatedDocument(SEED, i);
  const { image } = await workingCopy(await decodeImage(doc.image, { field: 'image', maxPixels: 40e6 }));
  const page = await engine.upright(image, 736);
  const g0 = glyphMs;
  // Alternate which reader goes first, so neither always reads a warm cache.
  const order = i % 2 === 0 ? [true, false] : [false, true];
  for (const glyphs of order) {
    const t0 = performance.now();
    const r = await (glyphs ? withGlyphs : without).read(page);
    const dt = performance.now() - t0;
    if (glyphs) tWith += dt;
    else tWithout += dt;
    if (glyphs && r) zones++;
  }
  perDoc.push(glyphMs - g0);
}
const sorted = [...perDoc].sort((a, b) => a - b);
console.log('\n| measure | value |');
console.log('|---|---|');
console.log(`| zones read (with templates) | ${zones}/${N} |`);
console.log(`| glyph stage per read, median / mean / max | ${sorted[Math.floor(N / 2)]!.toFixed(1)} / ${(glyphMs / N).toFixed(1)} / ${sorted[N - 1]!.toFixed(1)} ms |`);
console.log(`| zone read wall time, with / without templates (sum) | ${tWith.toFixed(0)} / ${tWithout.toFixed(0)} ms (ratio ${(tWith / tWithout).toFixed(3)}) |`);
console.log(`| glyph stage share of the read with templates | ${((100 * glyphMs) / tWith).toFixed(1)}% |`);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
