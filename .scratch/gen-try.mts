import { writeFileSync, mkdirSync } from 'node:fs';
import { Rng, randomIdentity } from '/work/wt-15/test/fixtures/mrz-docs/identity.js';
import { renderDocument } from '/work/wt-15/test/fixtures/mrz-docs/render.js';
mkdirSync('/tmp/gen', { recursive: true });
const seed = Number(process.argv[2] ?? 1);
for (let i = 0; i < 8; i++) {
  const rng = new Rng(seed * 1000 + i);
  const id = randomIdentity(rng);
  const t = Date.now();
  const d = await renderDocument(id, rng);
  console.log(i, id.format, id.lines.join(' / '), d.conditions.join(','), d.charPx.toFixed(1), Date.now() - t, 'ms');
  writeFileSync(`/tmp/gen/${i}.${d.image[0] === 0xff ? 'jpg' : 'png'}`, d.image);
}
