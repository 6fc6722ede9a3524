// Document endpoint latency: p50/p95 of /documents/mrz, /ocr and /scan on a passport page
// (1334x880 JPEG) through the real app (inject, no network), against baselines measured in the
// same run: decoding the upload alone, and Debian's tesseract-ocr CLI reading the same file
// (whole page, and with the MRZ alphabet whitelist).
// Run: node --import tsx bench/documents.ts [runs=20]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { decodeImage } from '../src/core/image-decode.js';
import { TESTDATA } from '../test/helpers/paths.js';
import { multipart } from '../test/helpers/multipart.js';
import { tesseract, tesseractAvailable, tesseractMrzText } from './lib/tesseract.js';
import { fmt, machineLine, summarize, timeIt, type Summary } from './lib/stats.js';
import { OcrEngine, workingCopy } from '../src/modules/document/ocr-engine.js';
import { MrzReader } from '../src/modules/document/mrz-reader.js';
import { loadDictionary, OCR_MODELS } from '../src/modules/document/plugin.js';
import { loadOpenCv } from '../src/modules/document/opencv.js';
import { REC_HEIGHT } from '../src/modules/document/text-recognizer.js';
import type { VigilContext } from '../src/core/context.js';

const RUNS = Number(process.argv[2] ?? 20);
const FILE = join(TESTDATA, 'documents', 'mrz', 'passporteye_tests_passport-td3.jpg');
const bytes = readFileSync(FILE);

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
const app = await buildApp(loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } }));
await app.ready();
const post = async (url: string) => {
  const { payload, headers } = multipart([{ name: 'image', file: bytes }]);
  const res = await app.inject({ method: 'POST', url, payload, headers });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
};

const tess = await tesseractAvailable();
console.log(machineLine());
console.log(`image: ${FILE.split('/').slice(-2).join('/')} (1334x880 JPEG), ${RUNS} runs each after 3 warm-up runs; baseline: ${tess ?? 'tesseract not installed'}`);
const rows: [string, Summary, number | undefined][] = [];
/** Wall time per call, and this process's CPU time per call (less sensitive to a busy box; none for child processes). */
const measure = async (label: string, fn: () => Promise<unknown>, inProcess = true) => {
  const c0 = process.cpuUsage();
  const s = summarize(await timeIt(RUNS, fn));
  const c = process.cpuUsage(c0);
  rows.push([label, s, inProcess ? (c.user + c.system) / 1000 / (RUNS + 3) : undefined]);
  return s;
};
await measure('decode only (sharp, EXIF, RGB)', () => decodeImage(bytes, { field: 'image', maxPixels: 40e6 }));
// Raw-model floor: the least model work an MRZ reading needs, on the app's own loaded models:
// one detector pass at the first /mrz pass's input size (736) and one recogniser batch of the
// zone's rows. Everything /mrz adds on top (outline, more passes, alignment, repair) is above it.
const vigil = (app as unknown as { vigil: VigilContext }).vigil;
const dictionary = await loadDictionary(vigil.models, vigil.config.document.models_dir);
const engine = new OcrEngine(await loadOpenCv(), { det: vigil.models.get(OCR_MODELS.det).runner, rec: vigil.models.get(OCR_MODELS.rec).runner }, dictionary);
const decoded = await decodeImage(bytes, { field: 'image', maxPixels: 40e6 });
const { image: working } = await workingCopy(decoded);
const zone = new MrzReader(engine).likelyZone(await engine.upright(working, 736));
const floor = await measure('raw-model floor: detector at 736 + recogniser on the MRZ rows', async () => {
  const page = await engine.upright(working, 736);
  await engine.readQuads(page.image, zone, { height: REC_HEIGHT, stretch: 1.15, interpolation: 'cubic' });
});
const mrz = await measure('POST /documents/mrz', () => post('/api/v1/documents/mrz'));
const ocr = await measure('POST /documents/ocr', () => post('/api/v1/documents/ocr'));
const scan = await measure('POST /documents/scan', () => post('/api/v1/documents/scan'));
const tMrz = tess ? await measure('tesseract CLI, MRZ whitelist (baseline)', () => tesseractMrzText(FILE), false) : undefined;
const tOcr = tess ? await measure('tesseract CLI, whole page (baseline)', () => tesseract(FILE), false) : undefined;

console.log('\n| what | runs | p50 ms | p95 ms | CPU ms per call | p50 vs baseline |');
console.log('|---|---|---|---|---|---|');
const ratio = (s: Summary, base: Summary | undefined, name: string) => (base ? `${(s.p50 / base.p50).toFixed(2)}x ${name}` : '');
for (const [label, s, cpu] of rows) {
  const extra =
    s === mrz || s === scan ? `${ratio(s, floor, 'raw-model floor')}${tMrz && s === mrz ? `, ${ratio(s, tMrz, 'tesseract MRZ')}` : ''}${tOcr && s === scan ? `, ${ratio(s, tOcr, 'tesseract page')}` : ''}` : s === ocr ? ratio(s, tOcr, 'tesseract page') : '';
  console.log(`| ${label} | ${s.n} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${cpu === undefined ? '-' : fmt(cpu)} | ${extra} |`);
}
console.log(`\ntargets on a 2-core box: /mrz p50 <= 300 ms (${mrz.p50 <= 300 ? 'met' : 'missed'}), /scan p50 <= 600 ms (${scan.p50 <= 600 ? 'met' : 'missed'}); on a loaded box compare the ratios to the raw-model floor`);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
