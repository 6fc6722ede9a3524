// The MRZ glyph stage's own CPU cost, and a fingerprint of what it computes: generated documents
// (fresh seed, printed; --seed replays) are read through the real app's POST /documents/mrz
// while every glyph stage's inputs are kept; the stages are then replayed --passes times each
// and timed by this process's CPU clock (the stage is plain JavaScript on the main thread, so
// other processes on a busy box move this figure less than wall time). The fingerprint is a
// sha256 of the first pass's output distributions: two checkouts that print the same one for a
// seed compute the same values. Copy the file into another checkout to compare the two.
// Run: node --import tsx bench/mrz-glyph-replay.ts [--n 12] [--seed N] [--passes 5]
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { MrzReader } from '../src/modules/document/mrz-reader.js';
import { generatedDocument } from '../test/fixtures/mrz-docs/render.js';
import { multipart } from '../test/helpers/multipart.js';
import { machineLine } from './lib/stats.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '12' }, seed: { type: 'string' }, passes: { type: 'string', default: '5' } } });
const N = Number(values.n);
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const PASSES = Number(values.passes);

type Stage = (...args: unknown[]) => Promise<Float32Array[][]>;
const proto = MrzReader.prototype as unknown as Record<string, Stage>;
const stage = proto.withGlyphs!;
const kept: { reader: unknown; args: unknown[] }[] = [];
proto.withGlyphs = function (this: unknown, ...args: unknown[]) {
  kept.push({ reader: this, args });
  return stage.apply(this, args);
};

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
const app = await buildApp(loadConfig({ env: {}, overrides: { server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir } } }));
await app.ready();
for (let i = 0; i < N; i++) {
  const { payload, headers } = multipart([{ name: 'image', file: (await generatedDocument(SEED, i)).doc.image }]);
  await app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload, headers });
}
proto.withGlyphs = stage;

console.log(machineLine());
console.log(`${kept.length} glyph stages from ${N} generated documents, seed ${SEED}; each replayed ${PASSES} times`);
const fingerprint = createHash('sha256');
const perPass: number[] = [];
for (let pass = 0; pass < PASSES; pass++) {
  const c0 = process.cpuUsage();
  for (const { reader, args } of kept) {
    const out = await stage.apply(reader, args);
    if (pass === 0) for (const row of out) for (const d of row) fingerprint.update(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
  }
  const c = process.cpuUsage(c0);
  perPass.push((c.user + c.system) / 1000);
}
const stages = Math.max(1, kept.length);
console.log(`CPU ms per stage, each pass: ${perPass.map((ms) => (ms / stages).toFixed(1)).join(' ')}; best ${(Math.min(...perPass) / stages).toFixed(1)}`);
console.log(`fingerprint ${fingerprint.digest('hex').slice(0, 16)}`);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
