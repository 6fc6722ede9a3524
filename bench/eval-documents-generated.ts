// MRZ accuracy on generated ICAO 9303 documents (TD1, TD2, TD3, MRV-A, MRV-B) and French identity cards
// (FRA_CNI, 2 x 36 but no ICAO TD2: a third of the drawn TD2s) nobody tuned on:
// a fresh seed every run (printed; --seed replays), rendered with camera-like damage by
// test/fixtures/mrz-docs and read through the real app's POST /api/v1/documents/mrz.
// Reports fully-correct rate, per type, per field, per condition, how many documents had every
// MRZ line exactly as printed, character error rate of the raw lines, how often a wrong read was
// reported fully valid, and a breakdown of the failures by cause (422, layout or row length,
// field) per font, with the character confusions of rows read at their right length
// (`--failures F` writes one JSON line a failure).
// Documents are rendered and read `--concurrency` at a time (the app's inference pool takes
// concurrent requests; rendering overlaps the reading); results do not depend on it.
// `--capture all` (or a list of names) gives every document one of the real-capture conditions of
// test/fixtures/mrz-docs/captures.ts (a card far off in a phone frame, strong tilt, a shadow or glare
// across the zone, infrared, ultraviolet, a flatbed scan...); without it a seed's documents are the ordinary mix.
// `--answers F` writes every document's whole answer, one JSON line each by index, to compare two builds answer by answer.
// `--mrz-font FAMILY` prints every MRZ in one installed font instead of the drawn one: a font the
// reader has no glyph templates for ("Noto Mono", fonts-noto-mono) measures it on a face it never saw.
// Run: node --import tsx bench/eval-documents-generated.ts [--n 1000] [--seed 12345] [--indices 3,17] [--types TD1,TD3,MRVA,FRA_CNI] [--capture all|tilt,uv] [--char-px 7-9] [--mrz-font "Noto Mono"] [--concurrency 3] [--show 10] [--answers F]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { LAYOUT_WARNINGS } from '../src/modules/document/mrz-parser.js';
import { multipart } from '../test/helpers/multipart.js';
import { randomIdentity, documentRng, type DocFormat, type ExpectedMrz } from '../test/fixtures/mrz-docs/identity.js';
import { CAPTURES, isCapture, type Capture } from '../test/fixtures/mrz-docs/captures.js';
import { renderDocument, type RenderOptions } from '../test/fixtures/mrz-docs/render.js';
import { editDistance } from './lib/tesseract.js';
import { fmt, machineLine, summarize } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    show: { type: 'string', default: '10' },
    dump: { type: 'string', description: 'folder to write the failing images to' },
    failures: { type: 'string', description: 'file to write one JSON line per failing document to' },
    answers: { type: 'string', description: 'file to write one JSON line per document to: its index, status and whole answer (to compare two builds answer by answer)' },
    types: { type: 'string', description: 'comma-separated layouts to draw from (TD1,TD2,TD3,MRVA,MRVB,FRA_CNI); all by default' },
    concurrency: { type: 'string', default: '3' },
    'low-light': { type: 'boolean', default: false, description: 'every document photographed in a dim room (the low-light damage forced)' },
    indices: { type: 'string', description: "read only these documents of the seed's run (comma-separated indices, as the failures print them)" },
    'mrz-font': {
      type: 'string',
      description: 'print every MRZ in this font family (a held-out font the reader has no templates for, e.g. "Noto Mono" from fonts-noto-mono); the rest of each document stays the seed\'s',
    },
    'char-px': { type: 'string', description: 'print every MRZ at a character height drawn from this range, in pixels (LO-HI, e.g. 7-9: the small print of low-resolution scans)' },
    capture: { type: 'string', description: `every document under one of these real-capture conditions (comma-separated, or all): ${CAPTURES.join(',')}` },
  },
});
// fontconfig substitutes a missing family silently: a held-out font must really be installed.
if (
  values['mrz-font'] &&
  !execFileSync('fc-list', [':', 'family'], { encoding: 'utf8' })
    .split('\n')
    .some((l) => l.split(',').includes(values['mrz-font']!))
)
  throw new Error(`--mrz-font: "${values['mrz-font']}" is not installed (fc-list : family)`);
const INDICES = values.indices?.split(',').map(Number);
const N = INDICES?.length ?? Number(values.n);
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const TYPES = values.types ? (values.types.split(',') as DocFormat[]) : undefined;
for (const t of TYPES ?? []) if (!['TD1', 'TD2', 'TD3', 'MRVA', 'MRVB', 'FRA_CNI'].includes(t)) throw new Error(`--types: unknown layout ${t}`);
const CONCURRENCY = Math.max(1, Number(values.concurrency));
const CHAR_PX = values['char-px']?.split('-').map(Number) as [number, number] | undefined;
if (CHAR_PX && !(CHAR_PX.length === 2 && CHAR_PX[0] > 0 && CHAR_PX[1] >= CHAR_PX[0])) throw new Error('--char-px: give a range LO-HI in pixels, e.g. 7-9');
const CAPTURE_SET: Capture[] | undefined = values.capture === undefined ? undefined : values.capture === 'all' ? [...CAPTURES] : values.capture.split(',').filter(isCapture);
if (values.capture !== undefined && values.capture !== 'all')
  for (const c of values.capture.split(',')) if (!isCapture(c)) throw new Error(`--capture: unknown condition ${c} (${CAPTURES.join(', ')})`);
const FIELDS = ['mrz_type', 'layout', 'document_code', 'document_number', 'surname', 'given_names', 'nationality', 'date_of_birth', 'sex', 'expiry_date', 'issuing_country'] as const;

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-eval-gen-'));
const app = await buildApp(loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } }));
await app.ready();

console.log(machineLine());
console.log(
  `generated MRZ documents: n=${N} seed=${SEED} types=${TYPES?.join(',') ?? 'all'}${values['low-light'] ? ' low-light' : ''}${values.capture ? ` capture=${values.capture}` : ''}${CHAR_PX ? ` char-px=${values['char-px']}` : ''}${values['mrz-font'] ? ` mrz-font="${values['mrz-font']}"` : ''} ${INDICES ? ` indices=${values.indices}` : ''} concurrency=${CONCURRENCY} (replay: --seed ${SEED}${TYPES ? ` --types ${TYPES.join(',')}` : ''}${values['low-light'] ? ' --low-light' : ''}${values.capture ? ` --capture ${values.capture}` : ''}${CHAR_PX ? ` --char-px ${values['char-px']}` : ''}${values['mrz-font'] ? ` --mrz-font "${values['mrz-font']}"` : ''})`,
);

interface Tally {
  n: number;
  ok: number;
}
const bump = (m: Map<string, Tally>, k: string, ok: boolean) => {
  const t = m.get(k) ?? { n: 0, ok: 0 };
  t.n++;
  if (ok) t.ok++;
  m.set(k, t);
};
const byType = new Map<string, Tally>();
const byCond = new Map<string, Tally>();
const byField = new Map<string, Tally>();
let ok = 0;
let wrongValid = 0;
let wrongValidQuiet = 0;
let wrongWarned = 0;
let rightWarned = 0;
let noMrz = 0;
let busy = 0;
let errChars = 0;
let totalChars = 0;
/** Documents whose every MRZ line came back exactly as printed (the held-back real set's measure; padding and optional data included). */
let linesExact = 0;
const latencies: number[] = [];
/** field_confidence of fields read right and read wrong, to show how well it separates them. */
const confRight: number[] = [];
const confWrong: number[] = [];
if (values.dump) mkdirSync(values.dump, { recursive: true });

const failureAt = new Map<number, string>();
/** Failures by cause and font, and the character confusions (want>got) of rows read at their right length. */
const causes = new Map<string, Map<string, number>>();
const confusions = new Map<string, number>();
const fontsSeen = new Set<string>();
const failureRecords: string[] = [];
/** Every document's answer by index (--answers). */
const answerRecords = new Map<number, string>();
const count = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
let done = 0;
const t0All = performance.now();
async function evaluate(i: number): Promise<void> {
  // Each document has its own stream, so one document can be replayed alone (seed, index).
  const rng = documentRng(SEED, i);
  const id = randomIdentity(rng, TYPES ? { format: rng.pick(TYPES) } : {});
  const opts: RenderOptions = values['low-light'] ? { lowLight: true } : {};
  if (values['mrz-font']) opts.mrzFont = values['mrz-font'];
  if (CAPTURE_SET) opts.capture = rng.pick(CAPTURE_SET);
  if (CHAR_PX) opts.charPx = rng.range(CHAR_PX[0], CHAR_PX[1]);
  const doc = await renderDocument(id, rng, opts);
  const { payload, headers } = multipart([{ name: 'image', file: doc.image }]);
  // 503 BUSY is the daemon's admission control shedding load (a busy box, several documents in
  // flight): a client retries after Retry-After, and so does the evaluation; only the answer counts.
  let res: Awaited<ReturnType<typeof app.inject>>;
  let t0 = 0;
  for (;;) {
    t0 = performance.now();
    res = await app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload, headers });
    if (res.statusCode !== 503 || (res.json() as { code?: string }).code !== 'BUSY') break;
    busy++;
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers['retry-after'] ?? 1)));
  }
  latencies.push(performance.now() - t0);
  if (values.answers) answerRecords.set(i, JSON.stringify({ i, status: res.statusCode, answer: res.json() as unknown }));
  const answer = res.statusCode === 200 ? (res.json() as ExpectedMrz & { warnings?: string[] }) : undefined;
  // Warnings that say what the layout lacks (a French card's expiry date) are no doubt about the reading.
  const got = answer && { ...answer, warnings: answer.warnings?.filter((w) => !LAYOUT_WARNINGS.includes(w)) };
  const exp = id.expected;
  const wrong = got ? FIELDS.filter((f) => got[f] !== exp[f]) : ['(no MRZ)'];
  if (!got) noMrz++;
  const allOk = wrong.length === 0;
  if (allOk) ok++;
  else if (got?.check_digits_valid) {
    wrongValid++;
    if (!got.warnings?.length) wrongValidQuiet++;
  }
  if (!allOk && got?.warnings?.length) wrongWarned++;
  if (allOk && got?.warnings?.length) rightWarned++;
  for (const f of FIELDS) bump(byField, f, got !== undefined && got[f] === exp[f]);
  const conf = (got as { field_confidence?: Record<string, number> } | undefined)?.field_confidence;
  if (got && conf) for (const f of FIELDS) if (conf[f] !== undefined) (got[f] === exp[f] ? confRight : confWrong).push(conf[f]);
  bump(byType, id.format, allOk);
  for (const c of doc.conditions) bump(byCond, c.startsWith('font:') ? c : c.replace(/\d+$/, (d) => (c.startsWith('exif') ? 'N' : d)), allOk);
  const ref = exp.raw_mrz.join('\n');
  const hyp = got ? got.raw_mrz.join('\n') : '';
  errChars += editDistance(hyp, ref);
  totalChars += ref.length;
  if (hyp === ref) linesExact++;
  if (!allOk) {
    failureAt.set(
      i,
      `#${i} ${id.format} [${doc.conditions.join(',')}] char ${doc.charPx.toFixed(1)}px: ${got ? `wrong ${wrong.join(',')} valid=${got.check_digits_valid} warnings=${(got.warnings ?? []).join(',') || '-'}\n    want ${exp.raw_mrz.join(' / ')}\n    got  ${got.raw_mrz.join(' / ')}` : `${res.statusCode} ${(res.json() as { code?: string }).code}`}`,
    );
    if (values.dump) writeFileSync(join(values.dump, `${i}.${doc.image[0] === 0xff ? 'jpg' : 'png'}`), doc.image);
    const font = doc.conditions.find((c) => c.startsWith('font:'))?.slice(5) ?? '?';
    const cause = failureCause(exp, got, wrong);
    const m = causes.get(cause) ?? new Map<string, number>();
    count(m, font);
    causes.set(cause, m);
    const conf: string[] = [];
    if (got && got.raw_mrz.length === exp.raw_mrz.length)
      exp.raw_mrz.forEach((w, li) => {
        const g = got.raw_mrz[li]!;
        if (g.length === w.length) for (let k = 0; k < w.length; k++) if (g[k] !== w[k]) conf.push(`${w[k]}>${g[k]}`);
      });
    for (const c of conf) count(confusions, c);
    failureRecords.push(
      JSON.stringify({
        i,
        format: id.format,
        font,
        conditions: doc.conditions,
        charPx: Number(doc.charPx.toFixed(1)),
        cause,
        wrong,
        confusions: conf,
        valid: got?.check_digits_valid,
        warnings: got?.warnings ?? [],
        want: exp.raw_mrz,
        got: got?.raw_mrz,
        status: res.statusCode,
      }),
    );
  }
  fontsSeen.add(doc.conditions.find((c) => c.startsWith('font:'))?.slice(5) ?? '?');
  if (++done % 50 === 0) console.error(`  ${done}/${N}: ${ok} fully correct, ${((performance.now() - t0All) / done / 1000).toFixed(2)} s a document`);
}
/**
 * One cause a failing document is counted under, the first that applies: no answer, the wrong
 * layout, a row of the wrong length, else the wrong fields (names alone, numbers and dates
 * alone, or both).
 */
function failureCause(exp: ExpectedMrz, got: ExpectedMrz | undefined, wrong: string[]): string {
  if (!got) return '422 (no MRZ)';
  if (got.mrz_type !== exp.mrz_type || got.layout !== exp.layout) return 'wrong layout';
  if (got.raw_mrz.some((l, i) => l.length !== exp.raw_mrz[i]?.length)) return 'row length';
  const names = wrong.filter((f) => f === 'surname' || f === 'given_names');
  if (names.length === wrong.length) return `names only (${names.join('+')})`;
  if (names.length === 0) return `checked fields only (${wrong.join('+')})`;
  return 'names and checked fields';
}

let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < N) {
      const k = next++;
      await evaluate(INDICES?.[k] ?? k);
    }
  }),
);
const failures = [...failureAt].sort((a, b) => a[0] - b[0]).map(([, f]) => f);
const wallS = (performance.now() - t0All) / 1000;

const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / Math.max(1, b)).toFixed(1)}%)`;
console.log('\n| measure | value |');
console.log('|---|---|');
console.log(`| fully correct (every spec field) | ${pct(ok, N)} |`);
console.log(`| wrong read reported check_digits_valid: true | ${pct(wrongValid, N)} |`);
console.log(`| ... of those, with no warning either | ${pct(wrongValidQuiet, N)} |`);
console.log(`| wrong reads that carried a warning | ${pct(wrongWarned, N - ok)} |`);
console.log(`| correct reads that carried a warning (false alarms) | ${pct(rightWarned, ok)} |`);
console.log(`| answered 422 (no MRZ found) | ${pct(noMrz, N)} |`);
console.log(`| 503 BUSY answers retried (admission control on a busy box) | ${busy} |`);
console.log(`| every MRZ line exactly as printed (raw_mrz, padding and optional data included) | ${pct(linesExact, N)} |`);
console.log(`| character error rate of raw_mrz | ${((100 * errChars) / Math.max(1, totalChars)).toFixed(2)}% |`);
const lat = summarize(latencies);
console.log(`| /documents/mrz latency p50 / p95 (loaded box, ${CONCURRENCY} requests in flight) | ${fmt(lat.p50)} / ${fmt(lat.p95)} ms |`);
console.log(`| wall time | ${wallS.toFixed(0)} s (${(wallS / N).toFixed(2)} s a document) |`);
const q = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(3) : '-');
console.log(`| field_confidence of right fields: p1 / p5 / p25 / p50 | ${q(confRight, 0.01)} / ${q(confRight, 0.05)} / ${q(confRight, 0.25)} / ${q(confRight, 0.5)} (n=${confRight.length}) |`);
console.log(`| field_confidence of wrong fields: p50 / p75 / p90 / max | ${q(confWrong, 0.5)} / ${q(confWrong, 0.75)} / ${q(confWrong, 0.9)} / ${q(confWrong, 0.999)} (n=${confWrong.length}) |`);
const table = (title: string, m: Map<string, Tally>) => {
  console.log(`\n| ${title} | fully correct |`);
  console.log('|---|---|');
  for (const [k, t] of [...m].sort((a, b) => a[0].localeCompare(b[0]))) console.log(`| ${k} | ${pct(t.ok, t.n)} |`);
};
table('type', byType);
console.log('\n| field | correct |');
console.log('|---|---|');
for (const [k, t] of byField) console.log(`| ${k} | ${pct(t.ok, t.n)} |`);
table('condition', byCond);
const fonts = [...fontsSeen].sort();
console.log(`\n| failure cause | all | ${fonts.join(' | ')} |`);
console.log(`|---|---|${fonts.map(() => '---|').join('')}`);
for (const [cause, m] of [...causes].sort((a, b) => [...b[1].values()].reduce((x, y) => x + y, 0) - [...a[1].values()].reduce((x, y) => x + y, 0)))
  console.log(`| ${cause} | ${[...m.values()].reduce((x, y) => x + y, 0)} | ${fonts.map((f) => m.get(f) ?? 0).join(' | ')} |`);
const topConfusions = [...confusions].sort((a, b) => b[1] - a[1]).slice(0, 20);
if (topConfusions.length) console.log(`\ncharacter confusions in rows read at their length (want>got: count): ${topConfusions.map(([c, n]) => `${c}: ${n}`).join(', ')}`);
if (values.failures) writeFileSync(values.failures, failureRecords.join('\n') + (failureRecords.length ? '\n' : ''));
if (values.answers)
  writeFileSync(
    values.answers,
    [...answerRecords]
      .sort((a, b) => a[0] - b[0])
      .map(([, a]) => `${a}\n`)
      .join(''),
  );
const show = Number(values.show);
if (failures.length && show > 0) {
  console.log(`\nfirst ${Math.min(show, failures.length)} of ${failures.length} failures (seed ${SEED}):`);
  for (const f of failures.slice(0, show)) console.log(f);
}
await app.close();
rmSync(dataDir, { recursive: true, force: true });
