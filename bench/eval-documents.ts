// Document accuracy on ../shared/testdata/documents: MRZ fields fully correct, check-digit
// validity, and OCR character error rate, for Vigil (/documents/mrz and /documents/ocr through
// the real app) and Debian's tesseract-ocr reading the same images in the same run.
// Also reports the held-back set documents/mrz-more (figures only: never tuned on).
// Run: node --import tsx bench/eval-documents.ts [--no-tesseract]   (needs `apt-get install tesseract-ocr` for the baseline)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { TESTDATA } from '../test/helpers/paths.js';
import { multipart } from '../test/helpers/multipart.js';
import { editDistance, mrzFromText, normaliseText, tesseract, tesseractAvailable, tesseractMrzText } from './lib/tesseract.js';
import { machineLine } from './lib/stats.js';

interface Entry {
  file: string;
  labels: {
    has_mrz?: boolean;
    text?: string;
    note?: string;
    mrz_lines?: string[];
    mrz_fields?: Record<string, string> & { format: string; check_digits_all_valid: boolean };
  };
}

const FIELDS: [spec: string, manifest: string][] = [
  ['document_number', 'document_number'],
  ['surname', 'surname'],
  ['given_names', 'given_names'],
  ['nationality', 'nationality'],
  ['issuing_country', 'issuing_state'],
  ['date_of_birth', 'birth_date'],
  ['sex', 'sex'],
  ['expiry_date', 'expiry_date'],
];

type Fields = Record<string, string | boolean | string[]> | undefined;

function wrongFields(got: Fields, e: NonNullable<Entry['labels']['mrz_fields']>): string[] {
  if (!got) return ['(no MRZ)'];
  // Country codes are returned without fillers (D<< is "D").
  const want = (spec: string, m: string) => (spec === 'nationality' || spec === 'issuing_country' ? e[m]!.replace(/</g, '') : e[m]);
  return FIELDS.filter(([spec, m]) => got[spec] !== want(spec, m)).map(([spec]) => spec);
}

const manifest = JSON.parse(readFileSync(join(TESTDATA, 'MANIFEST.json'), 'utf8')) as { files: Entry[] };
const docs = manifest.files.filter((f) => f.file.startsWith('documents/mrz/'));
// --no-tesseract skips the tesseract baseline (slow on a busy box).
const noTess = process.argv.includes('--no-tesseract');
const ocrDocs = manifest.files.filter((f) => f.file.startsWith('documents/ocr/'));
const tessVersion = noTess ? undefined : await tesseractAvailable();

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-eval-'));
const app = await buildApp(loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } }));
await app.ready();
const post = async (url: string, buf: Buffer) => {
  const { payload, headers } = multipart([{ name: 'image', file: buf }]);
  return app.inject({ method: 'POST', url, payload, headers });
};

console.log(machineLine());
console.log(`baseline: ${tessVersion ?? 'tesseract not installed (apt-get install tesseract-ocr): baseline columns empty'}`);
console.log('\n| document | format | Vigil | Vigil wrong fields | Vigil check digits | tesseract | tesseract wrong fields |');
console.log('|---|---|---|---|---|---|---|');

let labelled = 0;
let vigilOk = 0;
let tessOk = 0;
let validityRight = 0;
let tessValidityRight = 0;
let negativesOk = 0;
let negatives = 0;
for (const d of docs) {
  const path = join(TESTDATA, d.file);
  const name = d.file.split('/').pop()!;
  const res = await post('/api/v1/documents/mrz', readFileSync(path));
  const got: Fields = res.statusCode === 200 ? (res.json() as Fields) : undefined;
  const tess = tessVersion ? mrzFromText(await tesseractMrzText(path)) : undefined;
  const e = d.labels.mrz_fields;
  if (!d.labels.has_mrz || !e) {
    negatives++;
    if (res.statusCode === 422) negativesOk++;
    console.log(`| ${name} | none | ${res.statusCode === 422 ? '422 NO_MRZ (right)' : `wrong: ${res.statusCode}`} | | | ${tess ? 'found one (wrong)' : 'none (right)'} | |`);
    continue;
  }
  // The Spanish card is an illustration with a non-MRZ character (Ñ) and failing digits: robustness only.
  const exact = !/not as exact-match truth/.test(d.labels.note ?? '');
  const wrong = wrongFields(got, e);
  const tWrong = tessVersion ? wrongFields(tess?.result as unknown as Fields, e) : [];
  const validity = got ? got.check_digits_valid === e.check_digits_all_valid : false;
  const tValidity = tess ? tess.result.check_digits_valid === e.check_digits_all_valid : false;
  if (exact) {
    labelled++;
    if (wrong.length === 0) vigilOk++;
    if (tessVersion && tWrong.length === 0) tessOk++;
    if (validity) validityRight++;
    if (tValidity) tessValidityRight++;
  }
  console.log(
    `| ${name}${exact ? '' : ' (robustness only)'} | ${e.format} | ${wrong.length === 0 ? 'all correct' : 'wrong'} | ${wrong.join(', ')} | ${got ? `${String(got.check_digits_valid)} (${validity ? 'as labelled' : 'not as labelled'})` : '-'} | ${tessVersion ? (tWrong.length === 0 ? 'all correct' : 'wrong') : '-'} | ${tWrong.join(', ')} |`,
  );
}
const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / Math.max(1, b)).toFixed(1)}%)`;
console.log('\n| measure | Vigil | tesseract baseline |');
console.log('|---|---|---|');
console.log(`| labelled MRZ documents with every field correct | ${pct(vigilOk, labelled)} | ${tessVersion ? pct(tessOk, labelled) : '-'} |`);
console.log(`| check_digits_valid as labelled | ${pct(validityRight, labelled)} | ${tessVersion ? pct(tessValidityRight, labelled) : '-'} |`);
console.log(`| documents without an MRZ answered 422 | ${pct(negativesOk, negatives)} | - |`);

// The held-back set (documents/mrz-more: 13 issuers, phone photos, IR/UV captures, low
// resolution): figures only, never tuned on. Labels are the lines as printed (some specimens
// print wrong check digits: a reader must transcribe them and report the failing checks).
const more = manifest.files.filter((f) => f.file.startsWith('documents/mrz-more/'));
let moreOk = 0;
let moreLabelled = 0;
let moreNeg = 0;
let moreNegOk = 0;
let moreValidity = 0;
let moreCharErr = 0;
let moreChars = 0;
console.log('\n| held-back document (mrz-more) | format | Vigil | lines read | check_digits_valid |');
console.log('|---|---|---|---|---|');
for (const d of more) {
  const name = d.file.split('/').pop()!;
  const res = await post('/api/v1/documents/mrz', readFileSync(join(TESTDATA, d.file)));
  const got = res.statusCode === 200 ? (res.json() as { raw_mrz: string[]; check_digits_valid: boolean; warnings?: string[] }) : undefined;
  const lines = d.labels.mrz_lines;
  if (!d.labels.has_mrz || !lines) {
    moreNeg++;
    if (res.statusCode === 422) moreNegOk++;
    console.log(`| ${name} | none | ${res.statusCode === 422 ? '422 (right)' : `wrong: ${res.statusCode}`} | | |`);
    continue;
  }
  moreLabelled++;
  const exact = got !== undefined && got.raw_mrz.join('\n') === lines.join('\n');
  if (exact) moreOk++;
  const labelValid = (d.labels as { check_digits_valid?: boolean }).check_digits_valid;
  if (got && labelValid !== undefined && got.check_digits_valid === labelValid) moreValidity++;
  moreCharErr += editDistance(got ? got.raw_mrz.join('\n') : '', lines.join('\n'));
  moreChars += lines.join('\n').length;
  const fmtName = (d.labels as { format?: string }).format ?? '';
  console.log(
    `| ${name} | ${fmtName} | ${exact ? 'all lines right' : got ? 'wrong' : `${res.statusCode}`} | ${got ? got.raw_mrz.join(' / ') : ''} | ${got ? `${got.check_digits_valid}${got.warnings?.length ? ` (warnings: ${got.warnings.join(', ')})` : ''}` : ''} |`,
  );
}
console.log('\n| held-back measure (mrz-more) | Vigil |');
console.log('|---|---|');
console.log(`| documents with every MRZ line exactly as printed | ${pct(moreOk, moreLabelled)} |`);
console.log(`| check_digits_valid as labelled | ${pct(moreValidity, moreLabelled)} |`);
console.log(`| character error rate of the lines | ${((100 * moreCharErr) / Math.max(1, moreChars)).toFixed(2)}% |`);
console.log(`| documents without an MRZ answered 422 | ${pct(moreNegOk, moreNeg)} |`);

let vErr = 0;
let tErr = 0;
let chars = 0;
console.log('\n| OCR document | characters | Vigil CER | tesseract CER |');
console.log('|---|---|---|---|');
for (const d of ocrDocs) {
  const path = join(TESTDATA, d.file);
  const ref = normaliseText(d.labels.text ?? '');
  const res = await post('/api/v1/documents/ocr', readFileSync(path));
  const hyp = normaliseText((res.json() as { full_text: string }).full_text);
  const tHyp = tessVersion ? normaliseText(await tesseract(path)) : '';
  const v = editDistance(hyp, ref);
  const t = editDistance(tHyp, ref);
  vErr += v;
  tErr += t;
  chars += ref.length;
  console.log(`| ${d.file.split('/').pop()} | ${ref.length} | ${((100 * v) / ref.length).toFixed(1)}% | ${tessVersion ? `${((100 * t) / ref.length).toFixed(1)}%` : '-'} |`);
}
console.log(`| all | ${chars} | ${((100 * vErr) / chars).toFixed(1)}% | ${tessVersion ? `${((100 * tErr) / chars).toFixed(1)}%` : '-'} |`);

await app.close();
rmSync(dataDir, { recursive: true, force: true });
