import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { assertErrorShape, testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

/** Raw socket exchange: writes `chunks`, collects the answer until the server closes or `waitMs` passes. */
function exchange(port: number, chunks: (string | Buffer)[], waitMs: number): Promise<{ text: string; closedAfterMs: number | null }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let closed: number | null = null;
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = Date.now() - t0;
      clearTimeout(timer);
      resolve({ text, closedAfterMs: closed });
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs: closed });
    }, waitMs);
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
    });
  });
}

/** Status and parsed JSON body of the first HTTP response in a raw answer. */
function firstResponse(raw: string): { status: number; body: unknown } {
  const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw);
  assert.ok(m, `no HTTP response in ${JSON.stringify(raw.slice(0, 200))}`);
  const len = /content-length: (\d+)/i.exec(m[2]!);
  const body = len ? m[3]!.slice(0, Number(len[1])) : m[3]!;
  return { status: Number(m[1]), body: JSON.parse(body) as unknown };
}

describe('HTTP protocol: timeouts, parser errors and early 413s in the one error shape', () => {
  let t: TestApp;
  let port: number;
  const logLines: { level: number; msg: string; err?: unknown }[] = [];
  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as never);
        cb();
      },
    });
    t = await testApp({ server: { headers_timeout_ms: 400, request_timeout_ms: 1_500, idle_timeout_ms: 3_000, log_level: 'debug' } as never }, { logger: pino({ level: 'debug' }, sink) });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(async () => t.close());

  it('a header trickle is cut with 408 REQUEST_TIMEOUT (guards: slow headers held forever)', async () => {
    const r = await exchange(port, ['GET /api/v1/admin/health HTTP/1.1\r\nHost: x\r\nX-Slow: a'], 5_000);
    assert.ok(r.closedAfterMs !== null && r.closedAfterMs < 3_000, `closed after ${r.closedAfterMs} ms`);
    const res = firstResponse(r.text);
    assert.equal(res.status, 408);
    assertErrorShape(res.body, 408, 'REQUEST_TIMEOUT');
  });

  it('a body that stops after 100 of 1,000,000 bytes is cut by request_timeout_ms (guards: stalled uploads held forever)', async () => {
    const head = 'POST /api/v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n';
    const r = await exchange(port, [head, Buffer.alloc(100, 0x61)], 8_000);
    assert.ok(r.closedAfterMs !== null && r.closedAfterMs < 6_000, `closed after ${r.closedAfterMs} ms`);
    const res = firstResponse(r.text);
    assert.equal(res.status, 408);
    assertErrorShape(res.body, 408, 'REQUEST_TIMEOUT');
  });

  it('a chunked body announcing 0xffffffffffff bytes is cut too (guards: endless chunked bodies)', async () => {
    const head = 'POST /api/v1/events/webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffff\r\n{"url":';
    const r = await exchange(port, [head], 8_000);
    assert.ok(r.closedAfterMs !== null && r.closedAfterMs < 6_000, `closed after ${r.closedAfterMs} ms`);
    const res = firstResponse(r.text);
    assert.ok([408, 413, 400].includes(res.status), `status ${res.status}`);
    assertErrorShape(res.body, res.status);
  });

  it('a malformed request line answers 400 MALFORMED_REQUEST with a code (guards: bare parser 400s)', async () => {
    const r = await exchange(port, ['GARBAGE\r\n\r\n'], 3_000);
    const res = firstResponse(r.text);
    assert.equal(res.status, 400);
    assertErrorShape(res.body, 400, 'MALFORMED_REQUEST');
  });

  it('headers over the limit answer 431 HEADERS_TOO_LARGE with a code (guards: bare parser 431s)', async () => {
    const r = await exchange(port, [`GET /api/v1/admin/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`], 3_000);
    const res = firstResponse(r.text);
    assert.equal(res.status, 431);
    assertErrorShape(res.body, 431, 'HEADERS_TOO_LARGE');
  });

  it('a path parameter past the router limit answers 414 URL_TOO_LONG, a broken escape 400 BAD_URL (guards: frameworkErrors without code)', async () => {
    const long = await t.app.inject({ method: 'GET', url: `/api/v1/liveness/sessions/${'a'.repeat(300)}` });
    assert.equal(long.statusCode, 414);
    assertErrorShape(long.json(), 414, 'URL_TOO_LONG');
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/liveness/sessions/%E0%A4%A' });
    assert.equal(bad.statusCode, 400);
    assertErrorShape(bad.json(), 400, 'BAD_URL');
  });

  it('Expect: 100-continue with a 1 GB Content-Length gets an early 413, not 100 Continue (guards: checkContinue)', async () => {
    const head = 'POST /api/v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1073741824\r\nExpect: 100-continue\r\n\r\n';
    const r = await exchange(port, [head], 3_000);
    assert.doesNotMatch(r.text, /100 Continue/);
    const res = firstResponse(r.text);
    assert.equal(res.status, 413);
    assertErrorShape(res.body, 413, 'BODY_TOO_LARGE');
  });

  it('Expect: 100-continue with a small body still gets 100 Continue and its answer', async () => {
    const body = '{"url":"https://example.invalid/x","event_types":["nope"]}';
    const head = `POST /api/v1/events/webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    const r = await exchange(port, [head, body], 3_000);
    assert.match(r.text, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
    const res = firstResponse(r.text.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ''));
    assert.equal(res.status, 400);
    assertErrorShape(res.body, 400);
  });

  it('a 1 GB Content-Length without Expect is refused before the body is read', async () => {
    const head = 'POST /api/v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1073741824\r\n\r\n';
    const r = await exchange(port, [head, Buffer.alloc(1000)], 3_000);
    const res = firstResponse(r.text);
    assert.equal(res.status, 413);
    assertErrorShape(res.body, 413, 'BODY_TOO_LARGE');
  });

  it('clients that abort mid-upload or before the answer are logged at debug without a stack, and the daemon keeps serving (guards: aborts logged as errors)', async () => {
    const before = logLines.length;
    const image = readFileSync(testdata('faces', 'multi', 'faceapi_bbt4.jpg'));
    const { payload, headers } = multipart([{ name: 'image', file: image, filename: 'a.jpg' }]);
    const head = `POST /api/v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: ${headers['content-type']}\r\nContent-Length: ${payload.length}\r\n\r\n`;
    // Cut at a third of the body, and after the whole body (the answer then has nobody to go to).
    for (const cut of [Math.floor(payload.length / 3), payload.length]) {
      await new Promise<void>((resolve) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write(head);
          s.write(payload.subarray(0, cut));
          setTimeout(() => {
            s.destroy();
            resolve();
          }, 30);
        });
        s.on('error', () => {});
      });
    }
    await new Promise((r) => setTimeout(r, 3_000));
    const fresh = logLines.slice(before);
    const loud = fresh.filter((l) => l.level >= 40);
    assert.deepEqual(loud, [], `warn/error lines for a client abort: ${JSON.stringify(loud).slice(0, 2000)}`);
    const health = await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' });
    assert.equal(health.statusCode, 200);
  });
});
