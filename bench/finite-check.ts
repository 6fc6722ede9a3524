// Cost of the every-route guard against non-finite numbers (src/core/finite-numbers.ts): the
// same validated route with a query and a small JSON body, served by a bare fastify and by one
// with the guard, measured alternately in the same run (A B A B) so load drifts hit both.
//   node --import tsx bench/finite-check.ts [--seconds 3] [--connections 10] [--rounds 2]
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { rejectNonFiniteNumbers } from '../src/core/finite-numbers.js';
import { installErrorHandler } from '../src/core/error-handler.js';
import { machineLine } from './lib/stats.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '3' }, connections: { type: 'string', default: '10' }, rounds: { type: 'string', default: '2' } } });

async function server(guard: boolean): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false } } });
  installErrorHandler(app);
  if (guard) rejectNonFiniteNumbers(app);
  app.post(
    '/r',
    {
      schema: {
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 500 } } },
        body: { type: 'object', properties: { points: { type: 'array', items: { type: 'array', items: { type: 'number' } } } } },
      },
    },
    async (req) => ({ n: (req.body as { points: number[][] }).points.length }),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `${url}/r?limit=50` };
}

async function load(url: string) {
  const r = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ points: [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]] }),
    connections: Number(values.connections),
    duration: Number(values.seconds),
  });
  if (r.errors + r.non2xx > 0) throw new Error(`${r.errors} errors, ${r.non2xx} non-2xx`);
  return { rps: r.requests.average, p50: r.latency.p50, p97: r.latency.p97_5 };
}

console.log(machineLine());
const bare = await server(false);
const guarded = await server(true);
const sums = { bare: { rps: 0, p50: 0, p97: 0 }, guarded: { rps: 0, p50: 0, p97: 0 } };
const rounds = Number(values.rounds);
for (let i = 0; i < rounds; i++) {
  for (const [name, s] of [['bare', bare], ['guarded', guarded]] as const) {
    const r = await load(s.url);
    sums[name].rps += r.rps / rounds;
    sums[name].p50 += r.p50 / rounds;
    sums[name].p97 += r.p97 / rounds;
  }
}
for (const [name, s] of Object.entries(sums)) console.log(`${name.padEnd(8)} ${s.rps.toFixed(0).padStart(7)} req/s  p50 ${s.p50.toFixed(1)} ms  p97.5 ${s.p97.toFixed(1)} ms`);
console.log(`guarded / bare throughput: ${(sums.guarded.rps / sums.bare.rps).toFixed(3)}`);
await bare.app.close();
await guarded.app.close();
