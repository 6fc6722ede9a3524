import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { testApp, type TestApp } from '../helpers/app.js';
import { testdata, TESTDATA } from '../helpers/paths.js';
import { VIDEO_TEST_CONFIG, waitFor } from '../helpers/video.js';
import { ARTIFACTS, buildDashboard, launchBrowser, watchConsole } from './browser.js';

const PAGES = ['overview', 'cameras', 'watchlists', 'events', 'documents', 'liveness', 'settings'];
const CLIP = testdata('video', 'PETS09-S2L1', 'vtest.avi');

interface ManifestFile {
  file: string;
  labels?: Record<string, unknown>;
}
const manifest = JSON.parse(readFileSync(join(TESTDATA, 'MANIFEST.json'), 'utf8')) as { files: ManifestFile[] };
const mrzLabels = (file: string) => (manifest.files.find((f) => f.file === file)?.labels?.mrz_fields ?? {}) as Record<string, string>;

describe('operator dashboard in a real browser (Debian chromium, playwright-core)', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let desktop: BrowserContext;

  before(async () => {
    buildDashboard();
    t = await testApp({ video: VIDEO_TEST_CONFIG });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(path: string): Promise<{ page: Page; errors: string[] }> {
    const page = await desktop.newPage();
    const { errors } = watchConsole(page);
    await page.goto(`${base}/#/${path}`);
    return { page, errors };
  }

  it('a file camera added through the form gets a line drawn with the mouse, saved through the API, and its counts appear', async () => {
    const { page, errors } = await open('cameras');
    await page.fill('input[name=camera_id]', 'plaza');
    await page.fill('input[name=source]', CLIP);
    await page.click('button:has-text("Add camera")');
    // The snapshot replaces the placeholder once the camera has a frame.
    await page.waitForSelector('.editor img', { timeout: 60_000 });
    await page.fill('input[aria-label="rule name"]', 'plaza middle');
    await page.fill('input[aria-label="in label"]', 'east');
    await page.fill('input[aria-label="out label"]', 'west');
    const box = (await page.locator('[data-testid=rule-canvas]').boundingBox())!;
    // A vertical line through the middle of the plaza, top to bottom: people walk across it.
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.15);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.55, { steps: 8 });
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.9, { steps: 8 });
    await page.mouse.up();

    const lines = await waitFor(
      'the line to be saved',
      async () => {
        const l = (await t.app.inject({ url: '/api/v1/video/cameras/plaza/lines' })).json() as { name: string; points: number[][]; in_label: string }[];
        return l.length === 1 ? l : undefined;
      },
      10_000,
    );
    assert.equal(lines[0]!.name, 'plaza middle');
    assert.equal(lines[0]!.in_label, 'east');
    const [[ax, ay], [bx, by]] = lines[0]!.points as [[number, number], [number, number]];
    assert.ok(Math.abs(ax - 0.5) < 0.01 && Math.abs(bx - 0.5) < 0.01, `x follows the mouse: ${JSON.stringify(lines[0]!.points)}`);
    assert.ok(Math.abs(ay - 0.15) < 0.01 && Math.abs(by - 0.9) < 0.01, `y follows the mouse: ${JSON.stringify(lines[0]!.points)}`);

    // The counts table shows the rule, and people crossing it move its numbers.
    const row = page.locator('[data-testid=counts] tr', { hasText: 'plaza middle' });
    await row.waitFor({ timeout: 10_000 });
    await waitFor(
      'a crossing counted and shown',
      async () => {
        const [i, o] = [await row.locator('.count-in').textContent(), await row.locator('.count-out').textContent()];
        return Number(i) + Number(o) > 0;
      },
      120_000,
      500,
    );
    const api = (await t.app.inject({ url: '/api/v1/video/cameras/plaza/counts' })).json() as { lines: { in: number; out: number }[] };
    assert.ok(api.lines[0]!.in + api.lines[0]!.out > 0);
    await page.screenshot({ path: join(ARTIFACTS, 'cameras-line-drawn.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('a zone is drawn by tapping its corners; a line is moved by dragging and deleted, all through the API', async () => {
    const { page, errors } = await open('cameras?camera=plaza');
    await page.waitForSelector('.editor img', { timeout: 30_000 });
    const box = (await page.locator('[data-testid=rule-canvas]').boundingBox())!;
    const at = (x: number, y: number): [number, number] => [box.x + box.width * x, box.y + box.height * y];
    const rules = async (kind: 'lines' | 'zones') => (await t.app.inject({ url: `/api/v1/video/cameras/plaza/${kind}` })).json() as { rule_id: string; name: string; points: [number, number][] }[];

    await page.click('button:has-text("Draw zone")');
    await page.fill('input[aria-label="rule name"]', 'lawn');
    // Corners inside the 1280x800 viewport (a click below the fold would hit nothing).
    const corners: [number, number][] = [
      [0.1, 0.35],
      [0.4, 0.35],
      [0.4, 0.65],
      [0.1, 0.65],
    ];
    for (const [x, y] of corners) await page.mouse.click(...at(x, y));
    await page.mouse.click(...at(0.1, 0.35)); // the first corner again closes it
    const zones = await waitFor('the zone to be saved', async () => ((await rules('zones')).length === 1 ? rules('zones') : undefined), 10_000);
    assert.equal(zones[0]!.name, 'lawn');
    assert.equal(zones[0]!.points.length, 4);
    zones[0]!.points.forEach(([x, y], i) => assert.ok(Math.abs(x - corners[i]![0]) < 0.01 && Math.abs(y - corners[i]![1]) < 0.01, JSON.stringify(zones[0]!.points)));
    await page.locator('[data-testid=counts] tr', { hasText: 'lawn' }).waitFor({ timeout: 10_000 });

    // Move: drag the line 0.1 of the width to the right; it keeps its id, name and labels.
    const [before] = await rules('lines');
    await page.click('button:has-text("Move / select")');
    await page.mouse.move(...at(0.5, 0.3));
    await page.mouse.down();
    await page.mouse.move(...at(0.55, 0.3), { steps: 5 });
    await page.mouse.move(...at(0.6, 0.3), { steps: 5 });
    await page.mouse.up();
    const moved = await waitFor(
      'the line to be moved',
      async () => {
        const l = await rules('lines');
        return l.length === 1 && Math.abs(l[0]!.points[0]![0] - 0.6) < 0.01 ? l[0] : undefined;
      },
      10_000,
    );
    assert.equal(moved.rule_id, before!.rule_id);
    assert.equal(moved.name, 'plaza middle');
    assert.ok(Math.abs(moved.points[1]![0] - 0.6) < 0.01 && Math.abs(moved.points[0]![1] - 0.15) < 0.01, JSON.stringify(moved.points));

    // The moved line stays selected: delete it.
    await page.click('button:has-text("Delete selected")');
    await waitFor('the line to be deleted', async () => (await rules('lines')).length === 0, 10_000);
    await page.locator('[data-testid=counts] tr', { hasText: 'plaza middle' }).waitFor({ state: 'detached', timeout: 10_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'cameras-zone-drawn.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('enrolling through the form shows the detected face and puts the identity in the list', async () => {
    const { page, errors } = await open('watchlists');
    await page.setInputFiles('input[name=image]', testdata('faces', 'identities', 'bbt_amy', 'amy1.png'));
    await page.fill('input[name=label]', 'Amy Farrah Fowler');
    await page.fill('input[name=watchlist_name]', 'staff');
    await page.click('button[type=submit]');
    await page.waitForSelector('p[role=status]', { timeout: 30_000 });
    await page.waitForSelector('svg .facebox');
    const row = page.locator('[data-testid=identities] tr', { hasText: 'Amy Farrah Fowler' });
    await row.waitFor({ timeout: 10_000 });
    const members = (await t.app.inject({ url: '/api/v1/watchlist/staff' })).json() as { identities: { identity_id: string }[] };
    assert.equal(members.identities.length, 1);
    assert.match((await row.textContent())!, new RegExp(members.identities[0]!.identity_id));
    await page.screenshot({ path: join(ARTIFACTS, 'watchlists-enrolled.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('the document page shows the MRZ fields of a shared document, its OCR boxes and portrait', async () => {
    const file = 'documents/mrz/fastmrz_td3.jpg';
    const expected = mrzLabels(file);
    assert.ok(expected.document_number, 'the MANIFEST labels the document');
    const { page, errors } = await open('documents');
    await page.setInputFiles('input[name=image]', join(TESTDATA, file));
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-testid=mrz], [role=alert]', { timeout: 120_000 });
    assert.equal(await page.locator('[role=alert]').count(), 0, (await page.locator('[role=alert]').allTextContents()).join('; '));
    const field = async (k: string) => (await page.locator(`[data-testid=mrz] tr[data-field=${k}] td`).textContent())?.trim();
    assert.equal(await field('document_number'), expected.document_number);
    assert.equal(await field('surname'), expected.surname);
    assert.ok((await page.locator('svg .ocrbox').count()) > 3, 'OCR lines drawn over the image');
    await page.waitForSelector('img.portrait', { timeout: 30_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'documents-scanned.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("an API error is shown with the daemon's own message", async () => {
    const { page } = await open('cameras');
    await page.fill('input[name=camera_id]', 'plaza');
    await page.fill('input[name=source]', CLIP);
    await page.click('button:has-text("Add camera")');
    const expected = (await t.app.inject({ method: 'POST', url: '/api/v1/video/cameras', payload: { camera_id: 'plaza', source: CLIP } })).json() as {
      message: string;
      code: string;
    };
    assert.equal(expected.code, 'CAMERA_EXISTS');
    const alert = page.locator('[role=alert]', { hasText: expected.message });
    await alert.waitFor({ timeout: 10_000 });
    assert.match((await alert.textContent())!, /CAMERA_EXISTS/);

    await page.goto(`${base}/#/events`);
    await page.fill('input[name=url]', 'http://plain.example/hook');
    await page.click('button:has-text("Add webhook")');
    await page.locator('[role=alert]', { hasText: 'must be an https:// URL' }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'error-shown.png') });
    await page.close();
  });

  it('a webhook added through the form is listed, and its delivery log shows a failed attempt with its error', async () => {
    const { page, errors } = await open('events');
    // A receiver that refuses connections: every attempt fails with a network error.
    await page.fill('input[name=url]', 'https://127.0.0.1:1/hook');
    await page.check('fieldset.types label:has-text("system_error") input');
    await page.click('button:has-text("Add webhook")');
    const row = page.locator('tr', { hasText: 'https://127.0.0.1:1/hook' });
    await row.waitFor({ timeout: 10_000 });
    const [hook] = (await t.app.inject({ url: '/api/v1/events/webhooks' })).json() as { id: string; event_types: string[] }[];
    assert.deepEqual(hook!.event_types.sort(), ['line_crossed', 'system_error']);
    t.app.vigil.bus.emit('system_error', 'test', { module: 'test', message: 'delivery log check' });
    await row.locator('button:has-text("Delivery log")').click();
    const log = await waitFor(
      'a failed attempt in the log',
      async () => {
        const l = (await t.app.inject({ url: `/api/v1/events/webhooks/${hook!.id}/deliveries` })).json() as { deliveries: { last_error: string | null }[] };
        return l.deliveries.find((d) => d.last_error) ?? undefined;
      },
      20_000,
    );
    await page
      .locator('.deliveries td', { hasText: log.last_error!.slice(0, 30) })
      .first()
      .waitFor({ timeout: 10_000 });
    // Regression: a successful add once showed "Cannot read properties of null" (the form was read after the await).
    assert.deepEqual(await page.locator('[role=alert]').allTextContents(), []);
    assert.equal(await page.inputValue('input[name=url]'), '', 'the form is cleared after a successful add');
    await page.screenshot({ path: join(ARTIFACTS, 'events-webhook-log.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('every page loads with no console error, at 1280x800 and on a phone; events arrive live', async () => {
    for (const path of PAGES) {
      const { page, errors } = await open(path);
      await page.waitForSelector('main h1');
      await page.waitForLoadState('networkidle').catch(() => undefined); // SSE never idles: best effort
      await page.waitForTimeout(1500);
      await page.screenshot({ path: join(ARTIFACTS, `${path}-1280x800.png`), fullPage: true });
      assert.deepEqual(errors, [], `console errors on ${path}`);
      await page.close();
    }

    // The overview's event list is fed by GET /events/stream: an event emitted now shows up without a reload.
    const { page, errors } = await open('overview');
    await page.waitForSelector('.card header .badge.ok:has-text("live")', { timeout: 10_000 });
    t.app.vigil.bus.emit('system_error', 'test', { module: 'test', message: 'dashboard live check' });
    await page.locator('tr[data-type=system_error]', { hasText: 'dashboard live check' }).waitFor({ timeout: 5000 });
    assert.deepEqual(errors, []);
    await page.close();

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    for (const path of ['overview', 'cameras', 'watchlists']) {
      const p = await phone.newPage();
      const w = watchConsole(p);
      await p.goto(`${base}/#/${path}`);
      await p.waitForSelector('main h1');
      await p.waitForTimeout(1500);
      // Nothing wider than the screen: the page scrolls vertically only.
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 1, `${path} overflows the phone screen by ${overflow}px`);
      await p.screenshot({ path: join(ARTIFACTS, `${path}-phone.png`), fullPage: true });
      assert.deepEqual(w.errors, [], `console errors on ${path} (phone)`);
      await p.close();
    }
    await phone.close();
  });

  /**
   * The liveness page with a real selfie clip as Chromium's camera (a y4m file played as the
   * fake capture device, real blinks in it), the camera opened: `body` starts the session.
   */
  async function withFakeCamera(body: (page: Page, errors: string[]) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-fakecam-'));
    const y4m = join(dir, 'selfie.y4m');
    execFileSync(ffmpeg.path, ['-v', 'error', '-y', '-i', testdata('video', 'liveness-clips', 'blink_detector_selfie.mp4'), '-vf', 'scale=360:-2', '-r', '15', '-pix_fmt', 'yuv420p', y4m]);
    const cam = await launchBrowser(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${y4m}`]);
    try {
      const ctx = await cam.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      const { errors } = watchConsole(page);
      await page.goto(`${base}/#/liveness`);
      await page.click('button:has-text("Open camera")');
      await body(page, errors);
      await ctx.close();
    } finally {
      await cam.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Waits for the page's verdict and checks it against the session the daemon holds. */
  async function expectVerdict(page: Page, screenshot: string): Promise<void> {
    // Each challenge has 5 s from its first frame: the session ends, passed or failed, well within a minute.
    const verdict = page.locator('[data-testid=verdict]', { hasText: 'Verdict:' });
    // Whatever the page showed goes into a failure, to tell a camera that stopped from a
    // session that never ended or a run stopped by a refused frame.
    await verdict.waitFor({ timeout: 90_000 }).catch(async (err: unknown) => {
      const shown = await page
        .locator('main')
        .innerText()
        .catch(() => '(the page could not be read)');
      await page.screenshot({ path: join(ARTIFACTS, 'liveness-no-verdict.png'), fullPage: true }).catch(() => undefined);
      throw new Error(`no verdict within 90 s; the page showed:\n${shown}`, { cause: err });
    });
    await page.screenshot({ path: join(ARTIFACTS, screenshot), fullPage: true });
    const id = await page.locator('[data-testid=verdict]').getAttribute('data-session');
    const info = (await t.app.inject({ url: `/api/v1/liveness/sessions/${id}` })).json() as {
      state: string;
      frames_received: number;
      is_live: boolean | null;
      failure_reason: string | null;
      liveness_score: number | null;
    };
    assert.ok(info.frames_received > 0, 'frames from the browser camera reached the session');
    assert.equal(await page.locator('[data-testid=verdict]').getAttribute('data-state'), info.state);
    assert.match((await verdict.textContent())!, info.is_live ? /Verdict: live/ : /Verdict: not live/);
    // Guards the page reading liveness_score / failure_reason from the session's GET (the frame result has neither).
    const text = (await verdict.textContent())!;
    if (info.failure_reason) assert.ok(text.includes(info.failure_reason), `the verdict names ${info.failure_reason}: ${text}`);
    if (typeof info.liveness_score === 'number') assert.ok(text.includes(`liveness score ${info.liveness_score.toFixed(1)}`), `the verdict shows the score: ${text}`);
  }

  /**
   * Fills every slot of the liveness endpoint class with frame uploads whose body never
   * finishes (admission happens before the body is read), so that other frames are refused
   * with 503 BUSY; the returned function lets them go.
   */
  async function holdLivenessSlots(): Promise<() => void> {
    const url = `${base}/api/v1/liveness/sessions/held/frame`;
    const held: ClientRequest[] = [];
    const release = () => held.forEach((r) => r.destroy());
    while ((await fetch(url, { method: 'POST' })).status !== 503) {
      if (held.length >= 8) {
        release();
        throw new Error('8 unfinished uploads did not fill the liveness endpoint class');
      }
      const req = request(url, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': '1000000' } });
      req.on('error', () => undefined);
      req.write('--x\r\n');
      held.push(req);
      await new Promise((r) => setTimeout(r, 300));
    }
    return release;
  }

  it("the liveness page runs a real session from the browser camera (a face clip as Chromium's fake camera): challenges, then a verdict", async () => {
    await withFakeCamera(async (page, errors) => {
      await page.click('button:has-text("Start a session")');
      await page.locator('[data-testid=challenges] li').first().waitFor({ timeout: 10_000 });
      const n = await page.locator('[data-testid=challenges] li').count();
      assert.equal(n, 3, 'the default three challenges are listed');
      await expectVerdict(page, 'liveness-verdict.png');
      // The browser logs refused requests itself: 422 NO_FACE while the face settles, and 409
      // SESSION_ENDED for a frame sent after a challenge timed out. Nothing else may appear.
      assert.deepEqual(
        errors.filter((e) => !/status of (422|409)/.test(e)),
        [],
      );
    });
  });

  it('the liveness page stops on a refusal the daemon did not ask to be retried (a 503 with no Retry-After)', async () => {
    await withFakeCamera(async (page) => {
      // The daemon's answer when the liveness module is switched off, given to every frame.
      let frames = 0;
      await page.route('**/liveness/sessions/*/frame', async (route) => {
        frames++;
        await route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ statusCode: 503, code: 'MODULE_DISABLED', error: 'Service Unavailable', message: 'the liveness module is switched off' }),
        });
      });
      await page.click('button:has-text("Start a session")');
      await page.locator('[role=alert]', { hasText: 'MODULE_DISABLED' }).waitFor({ timeout: 20_000 });
      await page.locator('button:has-text("Start a session"):not([disabled])').waitFor({ timeout: 10_000 });
      await new Promise((r) => setTimeout(r, 2_000));
      assert.equal(frames, 1, 'one frame sent, none retried');
      assert.doesNotMatch((await page.locator('[role=alert]').textContent())!, /retrying/);
    });
  });

  it('the liveness page waits out 503 BUSY as Retry-After asks and still reaches a verdict', async () => {
    await withFakeCamera(async (page, errors) => {
      const release = await holdLivenessSlots();
      try {
        await page.click('button:has-text("Start a session")');
        // The page names the refusal and the wait instead of stopping the run.
        await page.locator('[role=alert]', { hasText: /BUSY.*retrying in \d+ s/ }).waitFor({ timeout: 20_000 });
        await new Promise((r) => setTimeout(r, 2_000));
      } finally {
        release();
      }
      await expectVerdict(page, 'liveness-verdict-after-busy.png');
      assert.ok(
        errors.some((e) => /status of 503/.test(e)),
        'frames were refused while the slots were held',
      );
      assert.deepEqual(
        errors.filter((e) => !/status of (422|409|503)/.test(e)),
        [],
      );
    });
  });
});
