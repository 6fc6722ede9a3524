import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';

/** Reads SSE messages from a streaming fetch until `count` events arrived (comments skipped). */
async function readEvents(res: Response, count: number, timeoutMs = 5000): Promise<{ id: string; event: string; data: unknown }[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const out: { id: string; event: string; data: unknown }[] = [];
  let buf = '';
  const deadline = Date.now() + timeoutMs;
  while (out.length < count) {
    const chunk = await Promise.race([reader.read(), new Promise<never>((_, rej) => setTimeout(() => rej(new Error('stream timed out')), deadline - Date.now()))]);
    if (chunk.done) break;
    buf += decoder.decode(chunk.value, { stream: true });
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((l) => !l.startsWith(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
      ) as Record<string, string>;
      if (fields.data) out.push({ id: fields.id!, event: fields.event!, data: JSON.parse(fields.data) });
    }
  }
  await reader.cancel();
  return out;
}

describe('GET /api/v1/events/stream (Server-Sent Events)', () => {
  let t: TestApp;
  let base: string;
  let closed = false;
  before(async () => {
    t = await testApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    if (!closed) await t.close();
  });

  it('streams each event as emitted (id, event type, the Event JSON as /events/recent has it)', async () => {
    const res = await fetch(`${base}/api/v1/events/stream`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const got = readEvents(res, 2);
    await new Promise((r) => setTimeout(r, 50));
    const a = t.app.vigil.bus.emit('line_crossed', 'video', { rule_id: 'door', direction: 'in' }, 'cam-1');
    const b = t.app.vigil.bus.emit('face_detected', 'face', { count: 1 });
    const events = await got;
    assert.deepEqual(events, [
      { id: a.id, event: 'line_crossed', data: a },
      { id: b.id, event: 'face_detected', data: b },
    ]);
    const recent = (await t.app.inject({ url: '/api/v1/events/recent?limit=2' })).json();
    assert.deepEqual(recent, [b, a], 'the stream and the history carry the same objects');
  });

  it('event_type filters as /events/recent does', async () => {
    const res = await fetch(`${base}/api/v1/events/stream?event_type=watchlist_alert`);
    const got = readEvents(res, 1);
    await new Promise((r) => setTimeout(r, 50));
    t.app.vigil.bus.emit('face_detected', 'face', { count: 2 });
    const alert = t.app.vigil.bus.emit('watchlist_alert', 'identity', { identity_id: 'x', label: 'X', similarity: 0.9, watchlist: 'vip' });
    assert.deepEqual(await got, [{ id: alert.id, event: 'watchlist_alert', data: alert }]);
  });

  it('an unknown event_type or parameter is a 400 in the error shape, before any stream starts', async () => {
    const bad = await fetch(`${base}/api/v1/events/stream?event_type=nope`);
    assert.equal(bad.status, 400);
    assertErrorShape(await bad.json(), 400, 'INVALID_EVENT_TYPE');
    const extra = await fetch(`${base}/api/v1/events/stream?limit=3`);
    assert.equal(extra.status, 400);
    assertErrorShape(await extra.json(), 400);
  });

  it('a closed client leaves no bus listener behind (guards a listener leak per dropped browser tab)', async () => {
    const before = t.app.vigil.bus.listenerCount();
    const ctrl = new AbortController();
    const res = await fetch(`${base}/api/v1/events/stream`, { signal: ctrl.signal });
    await res.body!.getReader().read(); // ": connected"
    assert.equal(t.app.vigil.bus.listenerCount(), before + 1);
    ctrl.abort();
    const deadline = Date.now() + 3000;
    while (t.app.vigil.bus.listenerCount() !== before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(t.app.vigil.bus.listenerCount(), before);
  });

  it('is documented in OpenAPI as text/event-stream with the event_type parameter', async () => {
    const doc = (await t.app.inject({ url: '/docs/json' })).json() as {
      paths: Record<string, { get?: { parameters?: { name: string }[]; responses: Record<string, { content?: Record<string, unknown> }> } }>;
    };
    const op = doc.paths['/api/v1/events/stream']?.get;
    assert.ok(op);
    assert.deepEqual(
      op.parameters!.map((p) => p.name),
      ['event_type'],
    );
    assert.ok(op.responses['200']!.content!['text/event-stream']);
  });

  // Last: it closes the app. Guards a shutdown that hung on hijacked SSE responses.
  it('app.close() ends open streams instead of hanging on them', async () => {
    const res = await fetch(`${base}/api/v1/events/stream`);
    const reader = res.body!.getReader();
    await reader.read();
    const started = Date.now();
    closed = true;
    await t.close();
    assert.ok(Date.now() - started < 5000, 'closed promptly');
    // The stream ends (done) rather than staying open.
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true }));
      if (r.done) break;
    }
  });
});
