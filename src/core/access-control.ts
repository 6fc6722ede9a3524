import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { VigilConfig } from '../config/schema.js';
import { AppError } from './errors.js';

export type Scope = 'read' | 'write' | 'admin';
const RANK: Record<Scope, number> = { read: 0, write: 1, admin: 2 };

/**
 * The scope a request needs (docs/security.md, "Access control"): configuration and anything
 * that exposes or redirects data (admin endpoints other than health, webhooks, camera sources)
 * is admin; other writes (images, sessions, enrolments) are write; the rest is read.
 */
export function requiredScope(method: string, path: string): Scope {
  const m = method.toUpperCase();
  const reading = m === 'GET' || m === 'HEAD';
  if (path === '/api/v1/admin/health' && reading) return 'read';
  if (path.startsWith('/api/v1/admin/') || path.startsWith('/api/v1/events/webhooks')) return 'admin';
  if (path.startsWith('/api/v1/video/') && !reading) return 'admin';
  return reading ? 'read' : 'write';
}

interface KnownToken {
  name: string;
  scope: Scope;
  sha256: Buffer;
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Bearer API tokens, off unless auth.tokens lists some (the spec's service is open). Tokens are
 * kept only as SHA-256 digests and compared in constant time against every entry, so neither
 * the config nor the timing says which token came close.
 */
export function installAccessControl(app: FastifyInstance, config: VigilConfig): void {
  const tokens: KnownToken[] = config.auth.tokens.map((t) => ({
    name: t.name,
    scope: t.scope,
    sha256: t.token_sha256 ? Buffer.from(t.token_sha256, 'hex') : sha256(t.token ?? ''),
  }));
  if (tokens.length === 0) return;
  app.log.info({ tokens: tokens.length }, 'API access control on: bearer tokens required');

  const identify = (request: FastifyRequest): KnownToken | undefined => {
    const header = request.headers.authorization;
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) return undefined;
    const presented = sha256(m[1]!);
    let found: KnownToken | undefined;
    for (const t of tokens) if (timingSafeEqual(t.sha256, presented) && !found) found = t;
    return found;
  };

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const need = requiredScope(request.method, path);
    const token = identify(request);
    if (!token) {
      reply.header('www-authenticate', 'Bearer realm="vigil"');
      throw new AppError(401, 'UNAUTHORIZED', 'a valid bearer token is required (Authorization: Bearer <token>)');
    }
    if (RANK[token.scope] < RANK[need]) {
      request.log.info({ token: token.name, scope: token.scope, required: need }, 'request refused: scope');
      throw new AppError(403, 'FORBIDDEN', `this token's scope is ${token.scope}; ${request.method} ${path} needs ${need}`, { required_scope: need });
    }
  });
}
