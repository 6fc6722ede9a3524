// Document endpoint latency: p50/p95 of /documents/mrz, /ocr and /scan through the real app
// (inject, no network), against baselines measured in the same run: decoding the upload alone,
// the raw-model floor (PP-OCR detection + recognition of the zone's rows on the same images),
// and Debian's tesseract-ocr CLI reading the same file (whole page, and with the MRZ alphabet
// whitelist). By default on one passport page (1334x880 JPEG); with `--generated K` on K
// generated ICAO documents (fresh seed, printed; `--seed` replays), cycled through the runs.
// Run: node --import tsx bench/documents.ts [--runs 20] [--generated 10] [--seed N]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { generatedDocument } from '../test/fixtures/mrz-docs/render.js';
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

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' }, generated: { type: 'string' }, seed: { type: 'string' } } });
const RUNS = Number(values.runs);
const GENERATED = values.generated !== undefined ? Number(values.generated) : 0;
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const FILE = join(TESTDATA, 'documents', 'mrz', 'passporteye_tests_passport-td3.jpg');
const images: Buffer[] = [];
if (GENERATED > 0) {
  for (let i = 0; i < GENERATED; i++) {
    images.push((await generatedDocument(SEED, i)).doc.image);
  }
} else images.push(readFileSync(FILE));
/** Each measured call takes the next image, so every image is timed about equally often. */
let turn = 0;
/** Each measure starts again from the first image (see measure). */
const nextImage = () => images[turn++ % images.length]!;

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
const app = await buildApp(loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } }));
await app.ready();
const post = async (url: string, bytes: Buffer) => {
  const { payload, headers } = multipart([{ name: 'image', file: bytes }]);
  const res = await app.inject({ method: 'POST', url, payload, headers });
  // A generated document may hold a zone the reader misses (422 NO_MRZ): it is still timed.
  if (res.statusCode !== 200 && !(GENERATED > 0 && res.statusCode === 422)) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
};

const tess = GENERATED > 0 ? undefined : await tesseractAvailable();
console.log(machineLine());
const what = GENERATED > 0 ? `${GENERATED} generated documents, seed ${SEED} (replay: --generated ${GENERATED} --seed ${SEED})` : `${FILE.split('/').slice(-2).join('/')} (1334x880 JPEG)`;
console.log(`images: ${what}; ${RUNS} runs each after 3 warm-up runs; baseline: ${GENERATED > 0 ? 'raw-model floor' : (tess ?? 'tesseract not installed')}`);
const rows: [string, Summary, number | undefined][] = [];
/** Wall time per call, and this process's CPU time per call (less sensitive to a busy box; none for child processes). */
const measure = async (label: string, fn: () => Promise<unknown>, inProcess = true) => {
  turn = 0; // every measure times the same images in the same order
  const c0 = process.cpuUsage();
  const s = summarize(await timeIt(RUNS, fn));
  const c = process.cpuUsage(c0);
  rows.push([label, s, inProcess ? (c.user + c.system) / 1000 / (RUNS + 3) : undefined]);
  return s;
};
await measure('decode only (sharp, EXIF, RGB)', () => decodeImage(nextImage(), { field: 'image', maxPixels: 40e6 }));
// Raw-model floor: the least model work an MRZ reading needs, on the app's own loaded models:
// one detector pass at the first /mrz pass's input size (736), the 0/180 direction classifier on
// the page's five longest lines (a page's orientation is not known before it runs: /mrz and /scan
// run it on every page, and an upside-down zone is unreadable without it), and one recogniser
// run per zone row. Everything /mrz adds on top (outline, more passes, alignment, repair, the
// glyph stage) is above it.
const vigil = (app as unknown as { vigil: VigilContext }).vigil;
const dictionary = await loadDictionary(vigil.models, vigil.config.document.models_dir);
const cls = vigil.models.tryGet(OCR_MODELS.cls)?.runner;
const engine = new OcrEngine(await loadOpenCv(), { det: vigil.models.get(OCR_MODELS.det).runner, rec: vigil.models.get(OCR_MODELS.rec).runner, ...(cls ? { cls } : {}) }, dictionary);
// Per image: its working copy and the rows the reader would take for its zone (none when the
// detector finds no block: the floor is then the detector pass alone).
const floors = await Promise.all(
  images.map(async (bytes) => {
    const { image: working } = await workingCopy(await decodeImage(bytes, { field: 'image', maxPixels: 40e6 }));
    return { working, zone: new MrzReader(engine).likelyZone(await engine.upright(working, 736)) };
  }),
);
const floor = await measure(`raw-model floor, MRZ: detector at 736${cls ? ' + direction classifier' : ''} + recogniser on the MRZ rows`, async () => {
  const { working, zone } = floors[turn++ % floors.length]!;
  const page = await engine.upright(working, 736);
  await engine.readQuads(page.image, zone, { height: REC_HEIGHT, stretch: 1.15, interpolation: 'cubic' });
});
// The page floor, for /ocr and /scan: one detector pass at 960, the direction classifier and one
// recogniser run per detected box, the least model work reading the whole page needs (no
// portrait, no MRZ passes).
const pages = await Promise.all(floors.map(async ({ working }) => (await engine.upright(working)).boxes.map((b) => b.quad)));
const pageFloor = await measure(`raw-model floor, page: detector at 960${cls ? ' + direction classifier' : ''} + recogniser on every box`, async () => {
  const i = turn++ % floors.length;
  const page = await engine.upright(floors[i]!.working);
  await engine.readQuads(page.image, pages[i]!, { height: REC_HEIGHT });
});
const mrz = await measure('POST /documents/mrz', () => post('/api/v1/documents/mrz', nextImage()));
const ocr = await measure('POST /documents/ocr', () => post('/api/v1/documents/ocr', nextImage()));
const scan = await measure('POST /documents/scan', () => post('/api/v1/documents/scan', nextImage()));
const tMrz = tess ? await measure('tesseract CLI, MRZ whitelist (baseline)', () => tesseractMrzText(FILE), false) : undefined;
const tOcr = tess ? await measure('tesseract CLI, whole page (baseline)', () => tesseract(FILE), false) : undefined;

console.log('\n| what | runs | p50 ms | p95 ms | CPU ms per call | p50 vs baseline |');
console.log('|---|---|---|---|---|---|');
const ratio = (s: Summary, base: Summary | undefined, name: string) => (base ? `${(s.p50 / base.p50).toFixed(2)}x ${name}` : '');
for (const [label, s, cpu] of rows) {
  const extra =
    s === mrz
      ? `${ratio(s, floor, 'MRZ floor')}${tMrz ? `, ${ratio(s, tMrz, 'tesseract MRZ')}` : ''}`
      : s === scan || s === ocr
        ? `${ratio(s, pageFloor, 'page floor')}${s === scan ? `, ${ratio(s, floor, 'MRZ floor')}` : ''}${tOcr ? `, ${ratio(s, tOcr, 'tesseract page')}` : ''}`
        : '';
  console.log(`| ${label} | ${s.n} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${cpu === undefined ? '-' : fmt(cpu)} | ${extra} |`);
}
console.log(
  `\ntargets on a 2-core box: /mrz p50 <= 300 ms (${mrz.p50 <= 300 ? 'met' : 'missed'}), /scan p50 <= 600 ms (${scan.p50 <= 600 ? 'met' : 'missed'}); on a loaded box compare the ratios to the raw-model floor`,
);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
