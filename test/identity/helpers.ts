import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { multipart, type Part } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

export const face = (...p: string[]) => readFileSync(testdata('faces', ...p));
export const person = (id: string, file: string) => face('identities', id, file);

export function enroll(app: FastifyInstance, image: Buffer, fields: Record<string, string> = {}) {
  const parts: Part[] = [{ name: 'image', file: image }, ...Object.entries(fields).map(([name, value]) => ({ name, value }))];
  return app.inject({ method: 'POST', url: '/api/v1/watchlist/enroll', ...multipart(parts) });
}

export function identify(app: FastifyInstance, image: Buffer, fields: Record<string, string> = {}) {
  const parts: Part[] = [{ name: 'image', file: image }, ...Object.entries(fields).map(([name, value]) => ({ name, value }))];
  return app.inject({ method: 'POST', url: '/api/v1/identify', ...multipart(parts) });
}

export async function watchlists(app: FastifyInstance): Promise<Record<string, { size: number; samples: number; stale_samples: number }>> {
  const res = await app.inject({ method: 'GET', url: '/api/v1/watchlist' });
  const body = res.json() as { watchlists: { name: string; size: number; samples: number; stale_samples: number }[] };
  return Object.fromEntries(body.watchlists.map((w) => [w.name, w]));
}
