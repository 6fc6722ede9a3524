// Baseline server for bench/http-baseline.ts: a bare fastify route answering the same JSON
// shape as /api/v1/admin/health, with nothing of Vigil behind it.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = {
  healthy: true,
  modules: { face: true, document: true, liveness: true, person: true, video: false, events: true, identity: true },
  details: { face: 'ok', document: 'ok', liveness: 'ok', person: 'ok', video: 'disabled in configuration', events: 'ok', identity: 'ok' },
};
app.get('/health', async () => body);
const port = Number(process.argv[2] ?? 0);
app.listen({ host: '127.0.0.1', port }).then(
  (addr) => console.log(`LISTENING ${addr}`),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
