// Identification accuracy on ../shared/testdata/faces/identities through the real HTTP
// endpoints (POST /watchlist/enroll, POST /identify) and the real models:
// - closed set: one photo per identity enrolled (the first in name order that passes the
//   quality gate), every other photo identified: rank-1 accuracy, and the share whose top
//   match also reaches the default threshold 0.4;
// - open set: for each identity, a watchlist of everybody else; each of its photos is a
//   person never enrolled there, so any match at the default threshold is a false positive
//   identification (FPIR).
//   node --import tsx bench/eval-identity.ts [--recognizer mobilefacenet_128d|faceplugin_512d]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { VigilConfig } from '../src/config/schema.js';
import { TESTDATA } from '../test/helpers/paths.js';
import { enroll, identify } from '../test/identity/helpers.js';
import { machineLine } from './lib/stats.js';

const { values } = parseArgs({ options: { recognizer: { type: 'string', default: 'mobilefacenet_128d' } } });
const THRESHOLD = 0.4;
const root = join(TESTDATA, 'faces', 'identities');
const people = readdirSync(root)
  .sort()
  .map((id) => ({ id, files: readdirSync(join(root, id)).sort() }));
const read = (id: string, f: string) => readFileSync(join(root, id, f));

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-eval-id-'));
const config = loadConfig({
  env: {},
  overrides: {
    server: { log_level: 'silent', hw_profile: 'x86-cpu', data_dir: dataDir },
    face: { recognizer: values.recognizer as VigilConfig['face']['recognizer'], enable_liveness: false },
    identity: { cluster_unmatched: false },
  },
});
const app = await buildApp(config);
await app.ready();
console.log(machineLine());
console.log(`recognizer ${app.face.recognizerName}, detector ${app.face.detectorName}, default threshold ${THRESHOLD}\n`);

try {
  // Which photo of each person is enrolled: the first that enrolment accepts.
  const enrolled = new Map<string, string>();
  for (const p of people) {
    for (const f of p.files) {
      const res = await enroll(app, read(p.id, f), { label: p.id, identity_id: p.id, watchlist_name: 'closed' });
      if (res.statusCode === 200) {
        enrolled.set(p.id, f);
        break;
      }
      console.log(`  ${p.id}/${f} not enrolled: ${res.json().code}`);
    }
  }

  // Closed set.
  let probes = 0;
  let rank1 = 0;
  let atThreshold = 0;
  let minGenuine = Infinity;
  const misses: string[] = [];
  for (const p of people) {
    for (const f of p.files) {
      if (f === enrolled.get(p.id)) continue;
      const res = await identify(app, read(p.id, f), { watchlist_name: 'closed', threshold: '0', top_k: '5' });
      if (res.statusCode !== 200) {
        misses.push(`${p.id}/${f}: ${res.json().code}`);
        probes++;
        continue;
      }
      const top = res.json().matches[0] as { identity_id: string; similarity: number } | undefined;
      probes++;
      if (top?.identity_id === p.id) {
        rank1++;
        minGenuine = Math.min(minGenuine, top.similarity);
        if (top.similarity >= THRESHOLD) atThreshold++;
      } else misses.push(`${p.id}/${f} -> ${top?.identity_id} (${top?.similarity})`);
    }
  }

  // Open set: every person against a watchlist of everybody else.
  let openProbes = 0;
  let falsePositives = 0;
  let maxImpostor = -Infinity;
  const fps: string[] = [];
  for (const [i, p] of people.entries()) {
    const wl = `without-${i}`;
    for (const other of people) {
      if (other.id === p.id || !enrolled.has(other.id)) continue;
      const res = await enroll(app, read(other.id, enrolled.get(other.id)!), { label: other.id, identity_id: `${other.id}@${wl}`, watchlist_name: wl });
      if (res.statusCode !== 200) throw new Error(`enrol ${other.id} into ${wl}: ${res.body}`);
    }
    for (const f of p.files) {
      const res = await identify(app, read(p.id, f), { watchlist_name: wl, threshold: '0', top_k: '1' });
      if (res.statusCode !== 200) continue;
      openProbes++;
      const top = res.json().matches[0] as { identity_id: string; similarity: number } | undefined;
      if (!top) continue;
      maxImpostor = Math.max(maxImpostor, top.similarity);
      if (top.similarity >= THRESHOLD) {
        falsePositives++;
        fps.push(`${p.id}/${f} -> ${top.identity_id} (${top.similarity})`);
      }
    }
  }

  console.log(
    `| recognizer | enrolled | probes | rank-1 | top match >= ${THRESHOLD} | never-enrolled probes | false positives at ${THRESHOLD} (FPIR) | lowest genuine rank-1 similarity | highest never-enrolled similarity |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${app.face.recognizerName} | ${enrolled.size} | ${probes} | ${rank1}/${probes} = ${((100 * rank1) / probes).toFixed(1)}% | ${atThreshold}/${probes} = ${((100 * atThreshold) / probes).toFixed(1)}% | ${openProbes} | ${falsePositives} (${((100 * falsePositives) / Math.max(1, openProbes)).toFixed(1)}%) | ${minGenuine.toFixed(4)} | ${maxImpostor.toFixed(4)} |`,
  );
  if (misses.length) console.log(`\nrank-1 misses:\n  ${misses.join('\n  ')}`);
  if (fps.length) console.log(`\nfalse positives:\n  ${fps.join('\n  ')}`);
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
