import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { InjectOptions } from 'fastify';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart, type Part } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';
import { manyScanJpeg, pngBombHeader, solidPng } from '../helpers/images.js';

// Guards: any bad input answering 5xx, being accepted, or leaving the daemon unhealthy (issue 17).
// One daemon, every endpoint of SPEC.md (and Vigil's additions), each case a 4xx in the error shape.

interface Case {
  name: string;
  req: () => InjectOptions;
  /** Expected status; any 4xx when omitted (some answers depend on the order of checks). */
  status?: number;
  code?: string;
}

/** A JPEG whose frame header claims width x height: a bomb's header on a tiny file. */
function jpegClaiming(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg);
  for (let i = 2; i + 9 < out.length;) {
    const marker = out[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xc2) {
      out.writeUInt16BE(height, i + 5);
      out.writeUInt16BE(width, i + 7);
      return out;
    }
    i += 2 + out.readUInt16BE(i + 2);
  }
  throw new Error('no SOF in the JPEG');
}

const mp = (url: string, parts: Part[]): InjectOptions => ({ method: 'POST', url, ...multipart(parts) });
const json = (method: InjectOptions['method'], url: string, payload: unknown): InjectOptions => ({
  method,
  url,
  headers: { 'content-type': 'application/json' },
  payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
});

describe('bad-input corpus: every endpoint answers 4xx in the error shape, never 5xx', () => {
  let t: TestApp;
  const face = readFileSync(testdata('faces', 'identities', 'bbt_amy', 'amy1.png'));
  const jpeg = readFileSync(testdata('faces', 'multi', 'faceapi_bbt4.jpg'));
  let tiny: Buffer;
  let scans100: Buffer;
  let sessionId = '';
  let endedSessionId = '';
  const cases: Case[] = [];

  before(async () => {
    t = await testApp({ video: { enabled: true } } as never);
    tiny = await solidPng(8, 8);
    scans100 = await manyScanJpeg(100, 1024, 1024);
    const s = await t.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions' });
    sessionId = s.json().session_id;
    const e = await t.app.inject({ method: 'POST', url: '/api/v1/liveness/sessions' });
    endedSessionId = e.json().session_id;
    await t.app.inject({ method: 'DELETE', url: `/api/v1/liveness/sessions/${endedSessionId}` });
    const cam = await t.app.inject(json('POST', '/api/v1/video/cameras', { camera_id: 'cam1', source: '/nonexistent/video.mp4' }));
    assert.ok(cam.statusCode < 500, cam.body);
  });
  after(async () => t?.close());

  // ---- Image endpoints: the same hostile uploads against each file field. ----
  const imageEndpoints: { url: () => string; file: string; others?: () => Part[] }[] = [
    { url: () => '/api/v1/detect', file: 'image' },
    { url: () => '/api/v1/verify', file: 'image1', others: () => [{ name: 'image2', file: face }] },
    { url: () => '/api/v1/verify', file: 'image2', others: () => [{ name: 'image1', file: face }] },
    { url: () => '/api/v1/documents/scan', file: 'image' },
    { url: () => '/api/v1/documents/ocr', file: 'image' },
    { url: () => '/api/v1/documents/mrz', file: 'image' },
    { url: () => '/api/v1/documents/verify', file: 'document', others: () => [{ name: 'selfie', file: face }] },
    { url: () => `/api/v1/liveness/sessions/${sessionId}/frame`, file: 'image' },
    { url: () => '/api/v1/watchlist/enroll', file: 'image', others: () => [{ name: 'label', value: 'Amy' }] },
    { url: () => '/api/v1/identify', file: 'image' },
  ];
  for (const ep of imageEndpoints) {
    const label = () => `${ep.url().replace(/[0-9a-f-]{36}/, ':id')} ${ep.file}`;
    const up =
      (file: Buffer, extra: Part[] = []) =>
      () =>
        mp(ep.url(), [...(ep.others?.() ?? []), { name: ep.file, file }, ...extra]);
    const add = (what: string, req: () => InjectOptions, status?: number, code?: string) =>
      cases.push({
        name: `${what}`,
        req,
        ...(status ? { status } : {}),
        ...(code ? { code } : {}),
        get label() {
          return label();
        },
      } as Case);
    add(`${ep.file}: non-image bytes`, () => up(Buffer.from('%PDF-1.4 not an image'))(), 415, 'UNSUPPORTED_IMAGE_TYPE');
    // GIF is accepted since issue 21 (content decides): a GIF header with no image is corrupt; SVG stays refused.
    add(`${ep.file}: truncated GIF`, () => up(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'))(), 400, 'INVALID_IMAGE');
    add(`${ep.file}: SVG`, () => up(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'))(), 415, 'UNSUPPORTED_IMAGE_TYPE');
    add(`${ep.file}: empty file`, () => up(Buffer.alloc(0))(), 400, 'INVALID_IMAGE');
    add(`${ep.file}: truncated JPEG`, () => up(jpeg.subarray(0, Math.floor(jpeg.length / 2)))(), 400, 'INVALID_IMAGE');
    add(`${ep.file}: truncated PNG`, () => up(face.subarray(0, 200))(), 400, 'INVALID_IMAGE');
    add(`${ep.file}: JPEG magic only`, () => up(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))(), 400, 'INVALID_IMAGE');
    add(`${ep.file}: PNG bomb 20000x20000`, () => up(pngBombHeader(20000, 20000))(), 413, 'IMAGE_TOO_LARGE');
    add(`${ep.file}: JPEG claiming 65000x65000`, () => up(jpegClaiming(jpeg, 65000, 65000))(), 413, 'IMAGE_TOO_LARGE');
    add(`${ep.file}: progressive JPEG with 100 scans`, () => up(scans100)(), 413, 'JPEG_TOO_COMPLEX');
    add(`${ep.file}: sent as a text field`, () => mp(ep.url(), [...(ep.others?.() ?? []), { name: ep.file, value: 'abc' }]), 400, 'MISSING_FIELD');
    add(`${ep.file}: missing`, () => mp(ep.url(), [...(ep.others?.() ?? [])]), 400, 'MISSING_FIELD');
    add(`${ep.file}: JSON body instead of multipart`, () => json('POST', ep.url(), { [ep.file]: 'x' }));
    add(`${ep.file}: text/plain body`, () => ({ method: 'POST', url: ep.url(), headers: { 'content-type': 'text/plain' }, payload: 'hello' }));
    add(`${ep.file}: no body`, () => ({ method: 'POST', url: ep.url() }));
    add(`${ep.file}: multipart without boundary`, () => ({ method: 'POST', url: ep.url(), headers: { 'content-type': 'multipart/form-data' }, payload: 'x' }));
    add(`${ep.file}: multipart cut mid-part`, () => {
      const m = multipart([...(ep.others?.() ?? []), { name: ep.file, file: face }]);
      return { method: 'POST', url: ep.url(), headers: m.headers, payload: m.payload.subarray(0, m.payload.length - 400) };
    });
    add(`${ep.file}: 70 KB text field`, () => up(tiny, [{ name: 'label', value: 'x'.repeat(70 * 1024) }])(), 413, 'FIELD_TOO_LARGE');
    add(
      `${ep.file}: five files`,
      () =>
        up(
          tiny,
          [1, 2, 3, 4].map((i) => ({ name: `extra${i}`, file: tiny })),
        )(),
      413,
    );
  }

  // ---- Numeric multipart fields. ----
  for (const v of ['abc', 'Infinity', '-Infinity', '1e309', 'NaN', '-0.1', '1.5', '0x10', '[]']) {
    cases.push({
      name: `verify threshold=${v}`,
      req: () =>
        mp('/api/v1/verify', [
          { name: 'image1', file: tiny },
          { name: 'image2', file: tiny },
          { name: 'threshold', value: v },
        ]),
      status: 400,
    });
    cases.push({
      name: `identify threshold=${v}`,
      req: () =>
        mp('/api/v1/identify', [
          { name: 'image', file: tiny },
          { name: 'threshold', value: v },
        ]),
      status: 400,
    });
    cases.push({
      name: `documents/verify threshold=${v}`,
      req: () =>
        mp('/api/v1/documents/verify', [
          { name: 'document', file: tiny },
          { name: 'selfie', file: tiny },
          { name: 'threshold', value: v },
        ]),
      status: 400,
    });
  }
  for (const v of ['abc', 'Infinity', '1e309', '2.5', '0', '-3', '1e9']) {
    cases.push({
      name: `identify top_k=${v}`,
      req: () =>
        mp('/api/v1/identify', [
          { name: 'image', file: tiny },
          { name: 'top_k', value: v },
        ]),
      status: 400,
    });
  }
  cases.push({ name: 'enroll without label', req: () => mp('/api/v1/watchlist/enroll', [{ name: 'image', file: face }]), status: 400, code: 'MISSING_FIELD' });
  cases.push({
    name: 'enroll with a blank label',
    req: () =>
      mp('/api/v1/watchlist/enroll', [
        { name: 'image', file: face },
        { name: 'label', value: '   ' },
      ]),
    status: 400,
  });
  cases.push({
    name: 'enroll with a traversal identity_id',
    req: () =>
      mp('/api/v1/watchlist/enroll', [
        { name: 'image', file: face },
        { name: 'label', value: 'A' },
        { name: 'identity_id', value: '../../etc/passwd' },
      ]),
  });
  cases.push({
    name: 'enroll with a traversal watchlist_name',
    req: () =>
      mp('/api/v1/watchlist/enroll', [
        { name: 'image', file: face },
        { name: 'label', value: 'A' },
        { name: 'watchlist_name', value: '../../x' },
      ]),
  });
  cases.push({
    name: 'identify in a traversal watchlist_name',
    req: () =>
      mp('/api/v1/identify', [
        { name: 'image', file: face },
        { name: 'watchlist_name', value: '../../x' },
      ]),
  });

  // ---- Liveness sessions. ----
  for (const q of [
    'num_challenges=Infinity',
    'num_challenges=1e309',
    'num_challenges=-Infinity',
    'num_challenges=NaN',
    'num_challenges=2.5',
    'num_challenges=0',
    'num_challenges=8',
    'num_challenges=-1',
    'num_challenges=abc',
    'num_challenges=',
    'timeout_seconds=Infinity',
    'timeout_seconds=1e309',
    'timeout_seconds=-Infinity',
    'timeout_seconds=NaN',
    'timeout_seconds=0',
    'timeout_seconds=1000',
    'timeout_seconds=-5',
    'timeout_seconds=abc',
    'unknown=1',
    'num_challenges=3&num_challenges=4',
  ]) {
    cases.push({ name: `create session ?${q}`, req: () => ({ method: 'POST', url: `/api/v1/liveness/sessions?${q}` }), status: 400 });
  }
  for (const id of ['00000000-0000-0000-0000-000000000000', 'nope', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'a'.repeat(65)]) {
    cases.push({ name: `GET session ${id.slice(0, 20)}`, req: () => ({ method: 'GET', url: `/api/v1/liveness/sessions/${id}` }) });
    cases.push({ name: `DELETE session ${id.slice(0, 20)}`, req: () => ({ method: 'DELETE', url: `/api/v1/liveness/sessions/${id}` }) });
    cases.push({ name: `frame to session ${id.slice(0, 20)}`, req: () => mp(`/api/v1/liveness/sessions/${id}/frame`, [{ name: 'image', file: face }]) });
  }
  cases.push({ name: 'frame to a cancelled session', req: () => mp(`/api/v1/liveness/sessions/${endedSessionId}/frame`, [{ name: 'image', file: face }]) });
  cases.push({ name: 'DELETE a cancelled session again', req: () => ({ method: 'DELETE', url: `/api/v1/liveness/sessions/${endedSessionId}` }) });
  cases.push({ name: 'GET a session id 300 characters long', req: () => ({ method: 'GET', url: `/api/v1/liveness/sessions/${'a'.repeat(300)}` }), status: 414 });

  // ---- Cameras, lines and zones. ----
  const cameraBodies: [string, unknown][] = [
    ['camera_id as a number', { camera_id: 123, source: '/x.mp4' }],
    ['source as a number', { camera_id: 'c2', source: 0 }],
    ['missing source', { camera_id: 'c2' }],
    ['missing camera_id', { source: '/x.mp4' }],
    ['empty camera_id', { camera_id: '', source: '/x.mp4' }],
    ['traversal camera_id', { camera_id: '../../etc', source: '/x.mp4' }],
    ['camera_id with a slash', { camera_id: 'a/b', source: '/x.mp4' }],
    ['camera_id 1000 characters', { camera_id: 'a'.repeat(1000), source: '/x.mp4' }],
    ['source 10000 characters', { camera_id: 'c2', source: `/${'a'.repeat(10000)}` }],
    ['unknown field', { camera_id: 'c2', source: '/x.mp4', admin: true }],
    ['loop as a string', { camera_id: 'c2', source: '/x.mp4', loop: 'yes' }],
    ['an array', [{ camera_id: 'c2', source: '/x.mp4' }]],
    ['a JSON string', '"cam"'],
    ['null', 'null'],
    ['broken JSON', '{"camera_id": "c2", '],
    ['duplicate camera_id', { camera_id: 'cam1', source: '/nonexistent/video.mp4' }],
    ['empty object', {}],
    ['empty source', { camera_id: 'c2', source: '' }],
  ];
  for (const [what, body] of cameraBodies) cases.push({ name: `add camera: ${what}`, req: () => json('POST', '/api/v1/video/cameras', body) });
  cases.push({ name: 'add camera: text/plain', req: () => ({ method: 'POST', url: '/api/v1/video/cameras', headers: { 'content-type': 'text/plain' }, payload: 'x' }) });
  cases.push({ name: 'add camera: 2 MB JSON', req: () => json('POST', '/api/v1/video/cameras', { camera_id: 'c3', source: 'x'.repeat(2 * 1024 * 1024) }), status: 413 });
  for (const id of ['ghost', '..%2F..%2Fetc', '%00', 'a'.repeat(64)]) {
    cases.push({ name: `camera ${id.slice(0, 12)}: GET`, req: () => ({ method: 'GET', url: `/api/v1/video/cameras/${id}` }) });
    cases.push({ name: `camera ${id.slice(0, 12)}: DELETE`, req: () => ({ method: 'DELETE', url: `/api/v1/video/cameras/${id}` }) });
    cases.push({ name: `camera ${id.slice(0, 12)}: snapshot`, req: () => ({ method: 'GET', url: `/api/v1/video/cameras/${id}/snapshot` }) });
    cases.push({ name: `camera ${id.slice(0, 12)}: counts`, req: () => ({ method: 'GET', url: `/api/v1/video/cameras/${id}/counts` }) });
  }
  cases.push({ name: 'snapshot of a camera without frames', req: () => ({ method: 'GET', url: '/api/v1/video/cameras/cam1/snapshot' }), status: 404 });
  const lineBodies: [string, unknown][] = [
    ['one point', { points: [[0.1, 0.1]] }],
    [
      'three points',
      {
        points: [
          [0.1, 0.1],
          [0.2, 0.2],
          [0.3, 0.3],
        ],
      },
    ],
    [
      'a coordinate of 2',
      {
        points: [
          [0.1, 0.1],
          [2, 0.2],
        ],
      },
    ],
    ['a coordinate of 1e309', '{"points":[[0.1,0.1],[1e309,0.2]]}'],
    [
      'string coordinates',
      {
        points: [
          ['0.1', '0.1'],
          ['0.2', '0.2'],
        ],
      },
    ],
    ['hysteresis 1e309', '{"points":[[0.1,0.1],[0.9,0.9]],"hysteresis":1e309}'],
    [
      'negative hysteresis',
      {
        points: [
          [0.1, 0.1],
          [0.9, 0.9],
        ],
        hysteresis: -1,
      },
    ],
    [
      'unknown field',
      {
        points: [
          [0.1, 0.1],
          [0.9, 0.9],
        ],
        color: 'red',
      },
    ],
    [
      'traversal rule_id',
      {
        points: [
          [0.1, 0.1],
          [0.9, 0.9],
        ],
        rule_id: '../x',
      },
    ],
    [
      'a zero-length line',
      {
        points: [
          [0.5, 0.5],
          [0.5, 0.5],
        ],
      },
    ],
  ];
  for (const [what, body] of lineBodies) cases.push({ name: `add line: ${what}`, req: () => json('POST', '/api/v1/video/cameras/cam1/lines', body) });
  const zoneBodies: [string, unknown][] = [
    [
      'two points',
      {
        points: [
          [0.1, 0.1],
          [0.2, 0.2],
        ],
      },
    ],
    [
      'a coordinate of -1',
      {
        points: [
          [0.1, 0.1],
          [-1, 0.2],
          [0.3, 0.9],
        ],
      },
    ],
    [
      'NaN-like string',
      {
        points: [
          [0.1, 0.1],
          ['NaN', 0.2],
          [0.3, 0.9],
        ],
      },
    ],
    [
      'a self-crossing bow tie',
      {
        points: [
          [0.1, 0.1],
          [0.9, 0.9],
          [0.9, 0.1],
          [0.1, 0.9],
        ],
      },
    ],
    ['points not an array', { points: 'square' }],
  ];
  for (const [what, body] of zoneBodies) cases.push({ name: `add zone: ${what}`, req: () => json('POST', '/api/v1/video/cameras/cam1/zones', body) });
  cases.push({
    name: 'line on an unknown camera',
    req: () =>
      json('POST', '/api/v1/video/cameras/ghost/lines', {
        points: [
          [0.1, 0.1],
          [0.9, 0.9],
        ],
      }),
    status: 404,
  });
  cases.push({ name: 'delete an unknown line', req: () => ({ method: 'DELETE', url: '/api/v1/video/cameras/cam1/lines/ghost' }), status: 404 });
  cases.push({ name: 'delete an unknown zone', req: () => ({ method: 'DELETE', url: '/api/v1/video/cameras/cam1/zones/ghost' }), status: 404 });
  cases.push({ name: 'reset counts: wrong body type', req: () => json('POST', '/api/v1/video/cameras/cam1/counts/reset', { rule_id: 5 }) });
  cases.push({ name: 'reset counts: unknown camera', req: () => json('POST', '/api/v1/video/cameras/ghost/counts/reset', {}) });

  // ---- Webhooks and events. ----
  const hookBodies: [string, unknown][] = [
    ['plain http URL', { url: 'http://example.invalid/h', event_types: ['face_detected'] }],
    ['url as a number', { url: 42, event_types: ['face_detected'] }],
    ['not a URL', { url: 'not a url', event_types: ['face_detected'] }],
    ['javascript: URL', { url: 'javascript:alert(1)', event_types: ['face_detected'] }],
    ['file: URL', { url: 'file:///etc/passwd', event_types: ['face_detected'] }],
    ['URL 5000 characters', { url: `https://example.invalid/${'a'.repeat(5000)}`, event_types: ['face_detected'] }],
    ['missing url', { event_types: ['face_detected'] }],
    ['missing event_types', { url: 'https://example.invalid/h' }],
    ['event_types a string', { url: 'https://example.invalid/h', event_types: 'face_detected' }],
    ['empty event_types', { url: 'https://example.invalid/h', event_types: [] }],
    ['unknown event type', { url: 'https://example.invalid/h', event_types: ['coffee_spilled'] }],
    ['event type as a number', { url: 'https://example.invalid/h', event_types: [1] }],
    ['secret as a number', { url: 'https://example.invalid/h', event_types: ['face_detected'], secret: 12345 }],
    ['unknown field', { url: 'https://example.invalid/h', event_types: ['face_detected'], retries: 3 }],
    ['broken JSON', '{"url":'],
    ['an array', []],
  ];
  for (const [what, body] of hookBodies) cases.push({ name: `add webhook: ${what}`, req: () => json('POST', '/api/v1/events/webhooks', body) });
  for (const sub of ['', '/deliveries', '/enable', '/test']) {
    const method = sub === '' ? 'DELETE' : sub === '/deliveries' ? 'GET' : 'POST';
    cases.push({
      name: `webhook ghost${sub} (${method})`,
      req: () => (method === 'POST' ? json('POST', `/api/v1/events/webhooks/ghost${sub}`, {}) : { method, url: `/api/v1/events/webhooks/ghost${sub}` }),
    });
  }
  cases.push({ name: 'redeliver on an unknown webhook', req: () => json('POST', '/api/v1/events/webhooks/ghost/deliveries/ghost/redeliver', {}) });
  for (const q of ['limit=Infinity', 'limit=1e309', 'limit=0', 'limit=-1', 'limit=abc', 'limit=2.5', 'limit=NaN', 'limit=99999999999', 'bogus=1']) {
    cases.push({ name: `recent events ?${q}`, req: () => ({ method: 'GET', url: `/api/v1/events/recent?${q}` }), status: 400 });
  }

  // ---- Watchlists, identity extras, admin, unknown routes. ----
  for (const id of ['ghost', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f', 'a'.repeat(90)]) {
    cases.push({ name: `delete identity ${id.slice(0, 16)}`, req: () => ({ method: 'DELETE', url: `/api/v1/watchlist/${id}` }) });
    cases.push({ name: `identity cluster ${id.slice(0, 16)}`, req: () => ({ method: 'GET', url: `/api/v1/identity/clusters/${id}` }) });
    cases.push({ name: `promote cluster ${id.slice(0, 16)}`, req: () => json('POST', `/api/v1/identity/clusters/${id}/promote`, { label: 'x' }) });
  }
  for (const q of ['min_size=Infinity', 'min_size=1e309', 'min_size=0', 'min_size=x']) {
    cases.push({ name: `clusters ?${q}`, req: () => ({ method: 'GET', url: `/api/v1/identity/clusters?${q}` }), status: 400 });
  }
  cases.push({ name: 'promote with a numeric label', req: () => json('POST', '/api/v1/identity/clusters/ghost/promote', { label: 7 }) });
  for (const [method, url] of [
    ['POST', '/api/v1/admin/health'],
    ['DELETE', '/api/v1/admin/config'],
    ['GET', '/api/v2/detect'],
    ['GET', '/api/v1/../../etc/passwd'],
    ['PUT', '/api/v1/watchlist'],
    ['GET', '/api/v1/detect'],
  ] as const) {
    cases.push({ name: `${method} ${url}`, req: () => ({ method, url }), status: 404 });
  }

  it(`has at least 200 cases (${cases.length})`, () => {
    assert.ok(cases.length >= 200, `only ${cases.length} cases`);
  });

  it('answers every case with a 4xx in the error shape', async () => {
    const failures: string[] = [];
    for (const c of cases) {
      const res = await t.app.inject(c.req());
      const where = `${c.name} [${(c as { label?: string }).label ?? ''}]`;
      if (res.statusCode < 400 || res.statusCode >= 500) {
        failures.push(`${where}: ${res.statusCode} ${res.body.slice(0, 160)}`);
        continue;
      }
      if (c.status && res.statusCode !== c.status) failures.push(`${where}: expected ${c.status}, got ${res.statusCode} ${res.body.slice(0, 160)}`);
      try {
        assertErrorShape(res.json(), res.statusCode, c.code);
      } catch (err) {
        failures.push(`${where}: ${(err as Error).message.slice(0, 200)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it('is healthy afterwards and still serves a good request', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' });
    assert.equal(health.statusCode, 200);
    const det = await t.app.inject(mp('/api/v1/detect', [{ name: 'image', file: face }]));
    assert.equal(det.statusCode, 200);
    assert.equal(det.json().count, 1);
  });
});
