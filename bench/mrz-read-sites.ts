// Where the recogniser's input columns of /documents/mrz go, by the reader's call site
// (first read, longer read, row extents, second look, tight names, tight pass; fast, full, ...).
// Run: node --import tsx bench/mrz-read-sites.ts [--n 50] [--seed N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { OcrEngine } from '../src/modules/document/ocr-engine.js';
import { cropWidth, type CropOptions } from '../src/modules/document/line-crop.js';
import type { Quad } from '../src/modules/document/geometry.js';
import { generatedDocument } from '../test/fixtures/mrz-docs/render.js';
import { multipart } from '../test/helpers/multipart.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '50' }, seed: { type: 'string' } } });
const N = Number(values.n);
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
Error.stackTraceLimit = 40;
let doc = new Map<string, number>();
const proto = OcrEngine.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
const orig = proto.readQuads!;
proto.readQuads = function (this: unknown, ...args: unknown[]) {
  const quads = args[1] as Quad[];
  const opts = args[2] as CropOptions;
  const cols = quads.reduce((s, q) => s + Math.ceil(cropWidth(q, opts) / 8) * 8, 0);
  const frames = (new Error().stack ?? '').split('\n').filter((l) => /mrz-reader|document-service/.test(l));
  const site = frames
    .map((l) => {
      const m = /at (?:async )?(?:\w+\.)?(\w+) .*\/(mrz-reader|document-service)\.ts:(\d+)/.exec(l);
      return m ? `${m[1]}:${m[3]}` : '?';
    })
    .join(' < ');
  doc.set(site, (doc.get(site) ?? 0) + cols);
  return orig.apply(this, args);
};
const dataDir = mkdtempSync(join(tmpdir(), 'vigil-sites-'));
const app = await buildApp(loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } }));
await app.ready();
console.log(`seed ${SEED} n ${N}`);
const total = new Map<string, [number, number]>();
for (let i = 0; i < N; i++) {
  const { id, doc: d } = await generatedDocument(SEED, i);
  const { payload, headers } = multipart([{ name: 'image', file: d.image }]);
  doc = new Map();
  const res = await app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload, headers });
  const got = res.statusCode === 200 ? (res.json() as { raw_mrz: string[]; check_digits_valid: boolean; warnings?: string[] }) : undefined;
  const ok = got?.raw_mrz.join('/') === id.expected.raw_mrz.join('/');
  const sum = [...doc.values()].reduce((a, b) => a + b, 0);
  console.log(
    `#${i} ${id.format} ${res.statusCode} ${ok ? 'ok' : 'WRONG'} valid=${got?.check_digits_valid} warn=${got?.warnings?.join(',') ?? ''} cols=${sum} ${[...doc].map(([k, v]) => `[${k}]=${v}`).join(' ')}`,
  );
  for (const [k, v] of doc) {
    const t = total.get(k) ?? [0, 0];
    t[0]++;
    t[1] += v;
    total.set(k, t);
  }
}
console.log('\nsite | docs | columns');
for (const [k, [n, c]] of [...total].sort((a, b) => b[1][1] - a[1][1])) console.log(`${c}\t${n}\t${k}`);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
