import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ServiceUnavailableError } from './errors.js';
import { packageRoot } from './package-root.js';

/** Where `npm run build` (scripts/build-ui.mjs) writes the dashboard bundle. */
export function dashboardDir(): string {
  return join(packageRoot(), 'dist', 'ui');
}

/**
 * Everything the dashboard loads comes from this daemon: the policy makes the browser refuse
 * any other origin, so an offline box never waits on a CDN. blob: and mediastream: serve the
 * snapshot/upload previews and the liveness page's camera.
 */
const CSP = [
  "default-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob: mediastream:",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

/**
 * Serves the operator dashboard at `/` (index.html, one script, one stylesheet); the API
 * stays under /api/v1 and Swagger at /docs. Only the files present at start-up are routed
 * (no wildcard), so unknown paths still get the API's 404 body.
 */
export async function registerDashboard(app: FastifyInstance, dir = dashboardDir()): Promise<void> {
  if (!existsSync(join(dir, 'index.html'))) {
    app.get('/', { schema: { hide: true } }, async () => {
      throw new ServiceUnavailableError('DASHBOARD_NOT_BUILT', `the dashboard is not built (${dir} has no index.html): run npm run build`);
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    wildcard: false,
    decorateReply: false,
    index: ['index.html'],
    // File names carry no hash: revalidate so an upgraded daemon never serves a stale script.
    cacheControl: false,
    setHeaders: (res) => {
      res.setHeader('cache-control', 'no-cache');
      res.setHeader('content-security-policy', CSP);
      res.setHeader('x-content-type-options', 'nosniff');
    },
  });
}
