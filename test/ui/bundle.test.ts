import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { dashboardDir, registerDashboard } from '../../src/core/dashboard.js';
import { installErrorHandler } from '../../src/core/error-handler.js';
import { assertErrorShape } from '../helpers/app.js';
import { buildDashboard } from './browser.js';

/** The budget for everything the dashboard loads. */
const BUDGET_GZIP_BYTES = 300 * 1024;

describe('dashboard bundle (npm run build → dist/ui) and how the daemon serves it', () => {
  before(() => buildDashboard());

  it(`weighs at most ${BUDGET_GZIP_BYTES / 1024} KiB gzipped in all`, () => {
    const files = readdirSync(dashboardDir());
    assert.ok(files.includes('index.html') && files.includes('app.js') && files.includes('styles.css'), files.join(','));
    const gz = files.reduce((n, f) => n + gzipSync(readFileSync(join(dashboardDir(), f))).length, 0);
    console.log(`dashboard: ${files.length} files, ${(gz / 1024).toFixed(1)} KiB gzipped`);
    assert.ok(gz <= BUDGET_GZIP_BYTES, `${gz} bytes gzipped`);
  });

  it('loads nothing from another origin (the box is offline)', () => {
    const html = readFileSync(join(dashboardDir(), 'index.html'), 'utf8');
    const css = readFileSync(join(dashboardDir(), 'styles.css'), 'utf8');
    const js = readFileSync(join(dashboardDir(), 'app.js'), 'utf8');
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//);
    assert.doesNotMatch(css, /url\(|@import/);
    // The only absolute URLs a bundle may carry are XML namespace names, which are never fetched.
    const urls = [...js.matchAll(/https?:\/\/[^"'`\s)]+/g)].map((m) => m[0]).filter((u) => !u.startsWith('http://www.w3.org/'));
    assert.deepEqual(urls, []);
  });

  it('is served at / with a same-origin CSP; /api paths that do not exist keep the JSON 404', async () => {
    const app = Fastify();
    installErrorHandler(app);
    await registerDashboard(app);
    const index = await app.inject({ url: '/' });
    assert.equal(index.statusCode, 200);
    assert.match(index.headers['content-type'] as string, /text\/html/);
    assert.match(index.headers['content-security-policy'] as string, /default-src 'self'/);
    assert.match(index.body, /<script type="module" src="app.js">/);
    const js = await app.inject({ url: '/app.js' });
    assert.equal(js.statusCode, 200);
    assert.match(js.headers['content-type'] as string, /javascript/);
    const missing = await app.inject({ url: '/api/v1/nothing' });
    assert.equal(missing.statusCode, 404);
    assertErrorShape(missing.json(), 404);
    await app.close();
  });

  it('an unbuilt dashboard answers 503 DASHBOARD_NOT_BUILT at / rather than an empty page', async () => {
    const app = Fastify();
    installErrorHandler(app);
    await registerDashboard(app, mkdtempSync(join(tmpdir(), 'vigil-noui-')));
    const res = await app.inject({ url: '/' });
    assert.equal(res.statusCode, 503);
    assertErrorShape(res.json(), 503, 'DASHBOARD_NOT_BUILT');
    await app.close();
  });
});
