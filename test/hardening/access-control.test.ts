import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { requiredScope } from '../../src/core/access-control.js';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';

const READ = 'read-token-0123456789abcdef';
const WRITE = 'write-token-0123456789abcdef';
const ADMIN = 'admin-token-0123456789abcdef';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('access control: off by default, bearer tokens with scopes when configured', () => {
  it('maps routes to scopes as docs/security.md says', () => {
    assert.equal(requiredScope('GET', '/api/v1/watchlist'), 'read');
    assert.equal(requiredScope('GET', '/api/v1/admin/health'), 'read');
    assert.equal(requiredScope('GET', '/api/v1/admin/config'), 'admin');
    assert.equal(requiredScope('POST', '/api/v1/detect'), 'write');
    assert.equal(requiredScope('DELETE', '/api/v1/watchlist/x'), 'write');
    assert.equal(requiredScope('GET', '/api/v1/events/webhooks'), 'admin');
    assert.equal(requiredScope('POST', '/api/v1/video/cameras'), 'admin');
    assert.equal(requiredScope('GET', '/api/v1/video/cameras'), 'read');
  });

  it('config: a token entry needs exactly one of token and token_sha256; TLS needs both files', () => {
    assert.throws(() => loadConfig({ env: {}, overrides: { auth: { tokens: [{ name: 'a', scope: 'read' }] } } }), ConfigError);
    assert.throws(() => loadConfig({ env: {}, overrides: { auth: { tokens: [{ name: 'a', scope: 'read', token: READ, token_sha256: sha(READ) }] } } }), ConfigError);
    assert.throws(() => loadConfig({ env: {}, overrides: { auth: { tokens: [{ name: 'a', scope: 'read', token: 'short' }] } } }), ConfigError);
    assert.throws(() => loadConfig({ env: {}, overrides: { server: { tls_cert_file: '/x.pem' } } }), ConfigError);
    const env = loadConfig({ env: { VIGIL_AUTH_TOKENS: JSON.stringify([{ name: 'ops', scope: 'admin', token_sha256: sha(ADMIN) }]) } });
    assert.equal(env.auth.tokens[0]?.name, 'ops');
  });

  describe('with tokens configured', () => {
    let t: TestApp;
    before(async () => {
      t = await testApp({
        auth: {
          tokens: [
            { name: 'viewer', scope: 'read', token_sha256: sha(READ) },
            { name: 'kiosk', scope: 'write', token: WRITE },
            { name: 'ops', scope: 'admin', token_sha256: sha(ADMIN) },
          ],
        },
      });
    });
    after(async () => t?.close());
    const get = (url: string, token?: string) => t.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

    it('no or a wrong token is 401 UNAUTHORIZED with WWW-Authenticate (guards: open API when tokens are set)', async () => {
      for (const res of [await get('/api/v1/watchlist'), await get('/api/v1/watchlist', 'wrong-token-0123456789'), await get('/api/v1/admin/health', 'Basic x')]) {
        assert.equal(res.statusCode, 401);
        assertErrorShape(res.json(), 401, 'UNAUTHORIZED');
        assert.match(String(res.headers['www-authenticate']), /^Bearer/);
      }
    });

    it('scopes: read reads, write posts images, only admin reads the config or manages webhooks', async () => {
      assert.equal((await get('/api/v1/watchlist', READ)).statusCode, 200);
      assert.equal((await get('/api/v1/admin/health', READ)).statusCode, 200);
      const cfg = await get('/api/v1/admin/config', WRITE);
      assert.equal(cfg.statusCode, 403);
      assertErrorShape(cfg.json(), 403, 'FORBIDDEN');
      assert.equal((await get('/api/v1/admin/config', ADMIN)).statusCode, 200);
      const post = (token: string) => t.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions', headers: { authorization: `Bearer ${token}` } });
      assert.equal((await post(READ)).statusCode, 403);
      assert.equal((await post(WRITE)).statusCode, 200);
      assert.equal((await post(ADMIN)).statusCode, 200);
      assert.equal((await get('/api/v1/events/webhooks', WRITE)).statusCode, 403);
      assert.equal((await get('/api/v1/events/webhooks', ADMIN)).statusCode, 200);
    });
  });

  it('without tokens the API stays open (the spec default)', async () => {
    const t = await testApp();
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/admin/config' });
      assert.equal(res.statusCode, 200);
    } finally {
      await t.close();
    }
  });

  describe('TLS from server.tls_cert_file and tls_key_file', () => {
    let pki: TestPki;
    let t: TestApp;
    before(async () => {
      pki = makeTestPki();
      writeFileSync(join(pki.dir, 'server.pem'), pki.serverCert);
      writeFileSync(join(pki.dir, 'server-key.pem'), pki.serverKey);
      t = await testApp({ server: { tls_cert_file: join(pki.dir, 'server.pem'), tls_key_file: join(pki.dir, 'server-key.pem') } as never });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await t?.close();
      pki?.cleanup();
    });

    it('serves HTTPS with the configured certificate, and refuses plain HTTP', async () => {
      const port = (t.app.server.address() as { port: number }).port;
      const dispatcher = new Agent({ connect: { ca: pki.caCert } });
      const res = await request(`https://127.0.0.1:${port}/api/v1/admin/health`, { dispatcher });
      assert.equal(res.statusCode, 200);
      await res.body.json();
      await dispatcher.close();
      await assert.rejects(fetch(`http://127.0.0.1:${port}/api/v1/admin/health`));
    });
  });
});
