import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PpmStreamParser, type RawFrame } from '../../src/modules/video/ppm-stream.js';
import { RestartPolicy } from '../../src/modules/video/restart-policy.js';
import { explainFailure, StderrRing } from '../../src/modules/video/stderr-ring.js';
import { FrameRing, RateMeter, type Frame } from '../../src/modules/video/frame-ring.js';

function ppm(w: number, h: number, fill: number): Buffer {
  return Buffer.concat([Buffer.from(`P6\n${w} ${h}\n255\n`), Buffer.alloc(w * h * 3, fill)]);
}

describe('PPM frame stream', () => {
  it('splits frames whatever the chunk boundaries, sizes read per frame', () => {
    const stream = Buffer.concat([ppm(4, 3, 1), ppm(4, 3, 2), ppm(2, 5, 3)]);
    for (const chunk of [1, 2, 7, 15, 36, 1000]) {
      const frames: RawFrame[] = [];
      const p = new PpmStreamParser((f) => frames.push(f));
      for (let i = 0; i < stream.length; i += chunk) p.push(stream.subarray(i, i + chunk));
      assert.deepEqual(
        frames.map((f) => [f.width, f.height, f.data.length, f.data[0], f.data[f.data.length - 1]]),
        [
          [4, 3, 36, 1, 1],
          [4, 3, 36, 2, 2],
          [2, 5, 30, 3, 3],
        ],
        `chunk ${chunk}`,
      );
      assert.equal(p.pendingBytes(), 0);
    }
  });

  it('a frame is its own copy (the pipe buffer is reused by node)', () => {
    const frames: RawFrame[] = [];
    const p = new PpmStreamParser((f) => frames.push(f));
    const buf = ppm(2, 2, 9);
    p.push(buf);
    buf.fill(0);
    assert.equal(frames[0]!.data[0], 9);
  });

  it('throws on a corrupt stream instead of misframing', () => {
    assert.throws(() => new PpmStreamParser(() => undefined).push(Buffer.from('GIF89a....')), /P6/);
    assert.throws(() => new PpmStreamParser(() => undefined).push(Buffer.from('P6\n4 x\n255\n')), /malformed/);
    assert.throws(() => new PpmStreamParser(() => undefined).push(Buffer.from('P6\n4 4\n65535\n')), /maxval/);
    assert.throws(() => new PpmStreamParser(() => undefined).push(Buffer.from('P6\n0 4\n255\n')), /size/);
  });
});

describe('restart policy', () => {
  const s = { initialMs: 1000, maxMs: 8000, maxRestarts: 6, windowMs: 60_000 };
  it('backs off exponentially up to the cap', () => {
    const p = new RestartPolicy(s);
    const delays = [0, 1, 2, 3, 4].map((i) => p.next(i * 100));
    assert.deepEqual(
      delays.map((d) => (d.action === 'restart' ? d.delayMs : -1)),
      [1000, 2000, 4000, 8000, 8000],
    );
  });
  it('starts over once frames flow again', () => {
    const p = new RestartPolicy(s);
    p.next(0);
    p.next(1);
    p.healthy();
    const d = p.next(2);
    assert.equal(d.action === 'restart' && d.delayMs, 1000);
  });
  it('gives up past the restart intensity, and forgets restarts older than the window', () => {
    const p = new RestartPolicy(s);
    for (let i = 0; i < 6; i++) assert.equal(p.next(i * 1000).action, 'restart');
    assert.equal(p.next(6000).action, 'give_up');
    const q = new RestartPolicy(s);
    for (let i = 0; i < 6; i++) q.next(i * 20_000);
    // the first restarts fell out of the 60 s window
    assert.equal(q.next(130_000).action, 'restart');
  });
});

describe('stderr ring', () => {
  it('keeps the last lines, redacted before storing', () => {
    const seen: string[] = [];
    const r = new StderrRing(3, ['s3cret'], (l) => seen.push(l));
    r.push('a\nrtsp://bob:s3cret@cam/x: Connection refused\r\nb\n');
    r.push('par');
    r.push('tial\n');
    r.push('last without newline');
    r.flush();
    assert.deepEqual(r.tail(), ['b', 'partial', 'last without newline']);
    assert.ok(seen.every((l) => !l.includes('s3cret')));
    assert.ok(seen.includes('rtsp://bob:***@cam/x: Connection refused'));
  });
  it('explains a failure by its last error-looking line', () => {
    assert.equal(explainFailure(['Input #0, rtsp', 'rtsp://cam/x: Connection refused', 'Exiting normally, received signal 15.']), 'rtsp://cam/x: Connection refused');
    assert.equal(explainFailure(['/v/none.mp4: No such file or directory']), '/v/none.mp4: No such file or directory');
    assert.equal(explainFailure([]), undefined);
  });
});

describe('frame ring and rate meter', () => {
  const f = (seq: number): Frame => ({ data: Buffer.alloc(3), width: 1, height: 1, seq, timestamp: seq });
  it('keeps the last buffer_size frames', () => {
    const ring = new FrameRing(3);
    assert.equal(ring.latest(), undefined);
    for (let i = 1; i <= 5; i++) ring.push(f(i));
    assert.deepEqual(
      ring.frames().map((x) => x.seq),
      [3, 4, 5],
    );
    assert.equal(ring.latest()!.seq, 5);
  });
  it('measures fps over its window and drops to 0 when frames stop', () => {
    const m = new RateMeter(5000);
    for (let i = 0; i <= 50; i++) m.tick(i * 100);
    assert.ok(Math.abs(m.rate(5000) - 10) < 0.01);
    assert.equal(m.rate(20_000), 0);
  });
});
