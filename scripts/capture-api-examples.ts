// Drives every operation of the API once on the real app (real models, real test data from
// ../shared/testdata) and writes what it answered into src/core/openapi-examples.generated.ts,
// the examples of /docs/json:
//   node --import tsx scripts/capture-api-examples.ts
// Long arrays are cut to their first three items and long strings shortened; test/admin/openapi.test.ts
// checks that every operation has an example and that each one still matches its schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { packageRoot } from '../src/core/package-root.js';
import { testApp } from '../test/helpers/app.js';
import { multipart, type Part } from '../test/helpers/multipart.js';
import { testdata } from '../test/helpers/paths.js';
import type { OperationExample } from '../src/core/openapi-examples.generated.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
type Answer = any;
const examples: Record<string, OperationExample> = {};
// The camera plays a shared clip: the test data folder is a file root, as in the video tests.
const t = await testApp({ video: { enabled: true, file_roots: [testdata()] }, events: { max_attempts: 1 } });

// The folders of this run stand for where an installed box keeps them (scripts/install.sh's
// PREFIX, systemd/vigil.service's VIGIL_DATA_DIR and the default media file root), so the
// published examples carry no developer's folders and do not change with the checkout.
const PLACES: [string, string][] = [
  [testdata(), '/var/lib/vigil/media'],
  [t.dataDir, '/var/lib/vigil'],
  [packageRoot(), '/opt/vigil'],
];
const placed = (s: string) => PLACES.reduce((acc, [from, to]) => acc.split(from).join(to), s);

function trim(v: unknown): unknown {
  if (Array.isArray(v)) return (v.length > 6 ? v.slice(0, 3) : v).map(trim);
  if (typeof v === 'string') {
    const s = placed(v);
    return s.length > 300 ? `${s.slice(0, 300)}...` : s;
  }
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trim(x)]));
  return v;
}

const image = (name: string, ...path: string[]): Part => ({
  name,
  file: readFileSync(testdata(...path)),
  filename: path.at(-1),
  contentType: path.at(-1)!.endsWith('.png') ? 'image/png' : 'image/jpeg',
});

/** One call; the first 2xx answer of each operation becomes its example. */
async function call(method: string, template: string, opts: { params?: Record<string, string>; query?: string; json?: unknown; form?: Part[]; binary?: string } = {}): Promise<Answer> {
  const url = template.replace(/\{(\w+)\}/g, (_m, p: string) => encodeURIComponent(opts.params?.[p] ?? '')) + (opts.query ? `?${opts.query}` : '');
  const mp = opts.form ? multipart(opts.form) : undefined;
  const res = await t.app.inject({
    method: method as 'GET',
    url,
    ...(mp ? { payload: mp.payload, headers: mp.headers } : opts.json !== undefined ? { payload: opts.json as object } : {}),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const key = `${method} ${template}`;
  const type = String(res.headers['content-type'] ?? '').split(';')[0]!;
  if (!examples[key]) {
    const ex: OperationExample = {};
    if (opts.binary) ex.binary = opts.binary;
    else if (type === 'application/json') ex.response = trim(res.json());
    else {
      ex.mediaType = type;
      ex.response = trim(res.body);
    }
    if (opts.json !== undefined) ex.request = trim(opts.json);
    // Numeric form fields are numbers in the multipart schema.
    if (opts.form) ex.request = Object.fromEntries(opts.form.map((p) => [p.name, 'file' in p ? `<${p.contentType} bytes>` : /^-?\d+(\.\d+)?$/.test(p.value) ? Number(p.value) : p.value]));
    examples[key] = ex;
  }
  return opts.binary || type !== 'application/json' ? res.rawPayload : res.json();
}

const V = '/api/v1';
try {
  await call('GET', `${V}/admin/health`);
  await call('GET', `${V}/admin/models`);
  await call('GET', `${V}/admin/config`);
  await call('GET', `${V}/admin/hw-profile`);
  await call('GET', `${V}/admin/version`);
  await call('GET', '/metrics');

  await call('POST', `${V}/detect`, { form: [image('image', 'faces', 'identities', 'fr_barack_obama', 'obama.jpg')] });
  await call('POST', `${V}/verify`, {
    form: [image('image1', 'faces', 'identities', 'fr_barack_obama', 'obama.jpg'), image('image2', 'faces', 'identities', 'fr_barack_obama', 'obama1.jpg'), { name: 'threshold', value: '0.4' }],
  });

  const enrolled = await call('POST', `${V}/watchlist/enroll`, {
    form: [
      image('image', 'faces', 'identities', 'fr_barack_obama', 'obama.jpg'),
      { name: 'label', value: 'Barack Obama' },
      { name: 'watchlist_name', value: 'default' },
      { name: 'metadata', value: '{"badge":"A-1047"}' },
    ],
  });
  await call('POST', `${V}/identify`, { form: [image('image', 'faces', 'identities', 'fr_barack_obama', 'obama2.jpg'), { name: 'top_k', value: '5' }, { name: 'threshold', value: '0.4' }] });
  await call('POST', `${V}/identify/track`, {
    form: [image('image1', 'faces', 'identities', 'fr_barack_obama', 'obama2.jpg'), image('image2', 'faces', 'identities', 'fr_barack_obama', 'obama3.jpg')],
  });
  await call('GET', `${V}/watchlist`);
  await call('GET', `${V}/watchlist/{watchlist_name}`, { params: { watchlist_name: 'default' }, query: 'offset=0&limit=50' });
  // Two people nobody enrolled: each starts a provisional cluster.
  await call('POST', `${V}/identify`, { form: [image('image', 'faces', 'identities', 'fr_kit_harington', 'john1.jpeg')] });
  await call('POST', `${V}/identify`, { form: [image('image', 'faces', 'identities', 'fr_rose_leslie', 'img1.jpg')] });
  const clusters = (await call('GET', `${V}/identity/clusters`)).clusters as { cluster_id: string }[];
  await call('GET', `${V}/identity/clusters/{cluster_id}`, { params: { cluster_id: clusters[0]!.cluster_id } });
  const promoted = await call('POST', `${V}/identity/clusters/{cluster_id}/promote`, { params: { cluster_id: clusters[0]!.cluster_id }, json: { label: 'Visitor 17', watchlist_name: 'default' } });
  await call('DELETE', `${V}/identity/clusters/{cluster_id}`, { params: { cluster_id: clusters[1]!.cluster_id } });
  await call('GET', `${V}/identity/stale`);
  await call('DELETE', `${V}/identity/stale`);
  await call('DELETE', `${V}/watchlist/{identity_id}`, { params: { identity_id: promoted.identity_id } });
  void enrolled;

  await call('POST', `${V}/documents/ocr`, { form: [image('image', 'documents', 'ocr', 'passporteye_tesseract-test2.png')] });
  await call('POST', `${V}/documents/mrz`, { form: [image('image', 'documents', 'mrz', 'fastmrz_passport_uk.jpg')] });
  await call('POST', `${V}/documents/scan`, { form: [image('image', 'documents', 'mrz', 'fastmrz_passport_uk.jpg')] });
  await call('POST', `${V}/documents/verify`, {
    form: [image('document', 'documents', 'mrz', 'fastmrz_passport_uk.jpg'), image('selfie', 'faces', 'identities', 'fr_barack_obama', 'obama.jpg'), { name: 'threshold', value: '0.4' }],
  });

  const session = await call('POST', `${V}/liveness/sessions`, { query: 'num_challenges=2&timeout_seconds=5' });
  await call('POST', `${V}/liveness/sessions/{session_id}/frame`, { params: { session_id: session.session_id }, form: [image('image', 'faces', 'identities', 'fr_barack_obama', 'obama.jpg')] });
  await call('GET', `${V}/liveness/sessions/{session_id}`, { params: { session_id: session.session_id } });
  await call('DELETE', `${V}/liveness/sessions/{session_id}`, { params: { session_id: session.session_id } });

  const cam = { camera_id: 'hall' };
  await call('POST', `${V}/video/cameras`, { json: { camera_id: 'hall', source: testdata('video', 'PETS09-S2L1', 'vtest.avi'), loop: true } });
  await call('POST', `${V}/video/cameras/{camera_id}/lines`, {
    params: cam,
    json: {
      rule_id: 'walkway',
      name: 'walkway',
      points: [
        [0, 0.5],
        [1, 0.5],
      ],
      in_label: 'south',
      out_label: 'north',
    },
  });
  await call('POST', `${V}/video/cameras/{camera_id}/zones`, {
    params: cam,
    json: {
      rule_id: 'lawn',
      name: 'lawn',
      points: [
        [0.1, 0.6],
        [0.9, 0.6],
        [0.9, 1],
        [0.1, 1],
      ],
    },
  });
  for (let i = 0; i < 60; i++) {
    const c = await call('GET', `${V}/video/cameras/{camera_id}`, { params: cam });
    if (c.frame_count > 50) break;
    await sleep(500);
  }
  await sleep(3000);
  delete examples[`GET ${V}/video/cameras/{camera_id}`];
  await call('GET', `${V}/video/cameras/{camera_id}`, { params: cam });
  await call('GET', `${V}/video/cameras`);
  await call('GET', `${V}/video/cameras/{camera_id}/snapshot`, { params: cam, binary: 'image/jpeg' });
  await call('GET', `${V}/video/cameras/{camera_id}/lines`, { params: cam });
  await call('GET', `${V}/video/cameras/{camera_id}/zones`, { params: cam });
  await call('GET', `${V}/video/cameras/{camera_id}/counts`, { params: cam });
  await call('GET', `${V}/video/cameras/{camera_id}/counts/history`, { params: cam, query: 'bucket=15m' });
  await call('POST', `${V}/video/cameras/{camera_id}/counts/reset`, { params: cam, json: { rule_id: 'walkway' } });
  await call('POST', `${V}/video/cameras/{camera_id}/disable`, { params: cam });
  await call('POST', `${V}/video/cameras/{camera_id}/enable`, { params: cam });
  await call('GET', `${V}/events/recent`, { query: 'limit=2' });
  // The event stream never ends, so inject cannot capture it: its example is the wire format the
  // endpoint writes (test/events/event-stream.test.ts reads the same from a real connection).
  examples[`GET ${V}/events/stream`] = {
    mediaType: 'text/event-stream',
    response:
      ': connected\n\nid: 4f0c1a52-8d0e-4d8e-9a53-0c5f0b0c7a11\nevent: line_crossed\ndata: {"id":"4f0c1a52-8d0e-4d8e-9a53-0c5f0b0c7a11","type":"line_crossed","timestamp":"2026-11-25T10:27:13.120Z","source":"video","camera_id":"hall","data":{"rule_id":"walkway","direction":"in","track_id":7}}\n\n: ping\n\n',
  };
  await call('DELETE', `${V}/video/cameras/{camera_id}/lines/{rule_id}`, { params: { ...cam, rule_id: 'walkway' } });
  await call('DELETE', `${V}/video/cameras/{camera_id}/zones/{rule_id}`, { params: { ...cam, rule_id: 'lawn' } });
  await call('DELETE', `${V}/video/cameras/{camera_id}`, { params: cam });

  // A receiver that refuses connections: with events.max_attempts 1 the test delivery fails at once.
  const hook = await call('POST', `${V}/events/webhooks`, { json: { url: 'https://127.0.0.1:9/vigil', event_types: ['watchlist_alert', 'line_crossed'], secret: 's3cret' } });
  const w = { webhook_id: hook.id };
  await call('GET', `${V}/events/webhooks`);
  await call('POST', `${V}/events/webhooks/{webhook_id}/test`, { params: w, json: { event_type: 'watchlist_alert' } });
  let log: Answer;
  for (let i = 0; i < 100; i++) {
    log = await call('GET', `${V}/events/webhooks/{webhook_id}/deliveries`, { params: w });
    if (log.deliveries[0]?.status === 'failed') break;
    await sleep(100);
  }
  delete examples[`GET ${V}/events/webhooks/{webhook_id}/deliveries`];
  await call('GET', `${V}/events/webhooks/{webhook_id}/deliveries`, { params: w });
  await call('POST', `${V}/events/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver`, { params: { ...w, delivery_id: log.deliveries[0].delivery_id } });
  await call('POST', `${V}/events/webhooks/{webhook_id}/enable`, { params: w });
  await call('PATCH', `${V}/events/webhooks/{webhook_id}`, { params: w, json: { event_types: ['watchlist_alert'], enabled: true } });
  await call('DELETE', `${V}/events/webhooks/{webhook_id}`, { params: w });
} finally {
  await t.close();
}

const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)));
const file = join(packageRoot(), 'src', 'core', 'openapi-examples.generated.ts');
writeFileSync(
  file,
  `// Generated by scripts/capture-api-examples.ts from a real run; do not edit by hand.
export interface OperationExample {
  request?: unknown;
  response?: unknown;
  /** Media type of a binary success answer (no JSON example). */
  binary?: string;
  /** Media type of a text success answer other than JSON (the example is its text). */
  mediaType?: string;
}

export const OPENAPI_EXAMPLES: Record<string, OperationExample> = ${JSON.stringify(sorted, null, 2)};
`,
);
console.log(`wrote ${Object.keys(sorted).length} examples to ${file}`);
