import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { EventHistory } from '../../src/modules/events/history.js';
import { nominalSchedule, parseRetryAfter, retryDelayMs, type RetryPolicy } from '../../src/modules/events/retry-schedule.js';
import { deliveryHeaders, signature } from '../../src/modules/events/signer.js';
import { isValidStateSuffix, topicMap, topicSegment } from '../../src/modules/events/mqtt-topics.js';
import { loadConfig } from '../../src/config/load.js';
import type { VigilEvent } from '../../src/core/event-types.js';

const defaults = loadConfig({ env: {} }).events;
const DEFAULT_POLICY: RetryPolicy = {
  baseDelayMs: defaults.retry_base_delay_ms,
  factor: defaults.retry_factor,
  maxDelayMs: defaults.retry_max_delay_ms,
  jitter: defaults.retry_jitter,
  maxAttempts: defaults.max_attempts,
};

function ev(i: number, type: VigilEvent['type'] = 'face_detected'): VigilEvent {
  return { id: `e${i}`, type, timestamp: new Date().toISOString(), source: 'test', data: { i }, camera_id: null };
}

describe('retry schedule', () => {
  it('the default schedule doubles from 5 s, caps at 30 min and lasts hours (docs/events.md table)', () => {
    const delays = nominalSchedule(DEFAULT_POLICY);
    assert.equal(delays.length, 19, 'max_attempts 20 = first attempt + 19 retries');
    assert.deepEqual(delays.slice(0, 10), [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 1_800_000]);
    const totalH = delays.reduce((a, b) => a + b, 0) / 3_600_000;
    assert.ok(totalH > 5 && totalH < 6, `schedule lasts ${totalH.toFixed(2)} h`);
  });

  it('jitter stays within ±jitter of the nominal delay', () => {
    const p = { ...DEFAULT_POLICY, jitter: 0.2 };
    assert.equal(
      retryDelayMs(3, p, () => 0),
      16_000,
    );
    assert.equal(
      retryDelayMs(3, p, () => 1),
      24_000,
    );
    assert.equal(
      retryDelayMs(3, p, () => 0.5),
      20_000,
    );
  });

  it('Retry-After: seconds, HTTP date, garbage', () => {
    assert.equal(parseRetryAfter('7'), 7000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now), 0, 'a date in the past means now');
    assert.equal(parseRetryAfter('soon'), null);
    assert.equal(parseRetryAfter(undefined), null);
  });
});

describe('signer', () => {
  it('X-Signature-256 is sha256=<hex HMAC-SHA256 of the raw body>, only with a secret', () => {
    const body = JSON.stringify(ev(1));
    const expected = createHmac('sha256', 's3cret').update(body).digest('hex');
    assert.equal(signature(body, 's3cret'), `sha256=${expected}`);
    const h = deliveryHeaders(body, { id: 'e1', type: 'face_detected' }, 's3cret', 'Vigil/test');
    assert.equal(h['content-type'], 'application/json');
    assert.equal(h['x-event-type'], 'face_detected');
    assert.equal(h['x-event-id'], 'e1');
    assert.equal(h['x-signature-256'], `sha256=${expected}`);
    assert.equal(deliveryHeaders(body, { id: 'e1', type: 'face_detected' }, null, 'Vigil/test')['x-signature-256'], undefined);
  });
});

describe('history', () => {
  it('is bounded, newest first, filters by type before limiting', () => {
    const h = new EventHistory(5);
    for (let i = 0; i < 8; i++) h.push(ev(i, i % 2 ? 'line_crossed' : 'face_detected'));
    assert.equal(h.size, 5);
    assert.deepEqual(
      h.recent(100).map((e) => e.id),
      ['e7', 'e6', 'e5', 'e4', 'e3'],
    );
    assert.deepEqual(
      h.recent(2).map((e) => e.id),
      ['e7', 'e6'],
    );
    assert.deepEqual(
      h.recent(100, 'face_detected').map((e) => e.id),
      ['e6', 'e4'],
    );
  });
});

describe('mqtt topics', () => {
  it('maps events and camera events, and makes camera ids one safe level', () => {
    const t = topicMap('vigil');
    assert.equal(t.availability, 'vigil/availability');
    assert.equal(t.event('line_crossed'), 'vigil/events/line_crossed');
    assert.equal(t.cameraEvent('door-1', 'person_entered'), 'vigil/cameras/door-1/events/person_entered');
    assert.equal(t.cameraEvent('a/b+#', 'line_crossed'), 'vigil/cameras/a_b__/events/line_crossed');
    assert.equal(topicSegment(''), '_');
    assert.ok(isValidStateSuffix('cameras/door-1/counts'));
    for (const bad of ['', 'a//b', 'a/+/b', '#', '$SYS/x']) assert.ok(!isValidStateSuffix(bad), bad);
  });
});
