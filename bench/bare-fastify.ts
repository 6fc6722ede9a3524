// Baseline server for the HTTP benches: bare fastify routes with nothing of Vigil behind them.
// GET /health answers the same JSON shape as /api/v1/admin/health (bench/http-baseline.ts);
// POST /upload reads one multipart file into memory with @fastify/multipart, as Vigil's image
// routes do, and answers a small JSON (bench/face.ts: the HTTP share of a request).
import multipart from '@fastify/multipart';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
await app.register(multipart);
const body = {
  healthy: true,
  modules: { face: true, document: true, liveness: true, person: true, video: false, events: true, identity: true },
  details: { face: 'ok', document: 'ok', liveness: 'ok', person: 'ok', video: 'disabled in configuration', events: 'ok', identity: 'ok' },
};
app.get('/health', async () => body);
app.post('/upload', async (request) => {
  let bytes = 0;
  for await (const part of request.parts()) if (part.type === 'file') bytes += (await part.toBuffer()).length;
  return { bytes };
});
const port = Number(process.argv[2] ?? 0);
app.listen({ host: '127.0.0.1', port }).then(
  (addr) => console.log(`LISTENING ${addr}`),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
