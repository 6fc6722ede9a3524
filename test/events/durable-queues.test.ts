import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openEventsStore } from '../../src/modules/events/store.js';
import { MqttQueue } from '../../src/modules/events/mqtt-queue.js';
import { Outbox } from '../../src/modules/events/outbox.js';

const log = pino({ level: 'silent' });

describe('durable queues on a real LMDB store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-queues-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the MQTT queue is bounded (oldest dropped), in order, and reloads what was not acknowledged', async () => {
    let store = openEventsStore(join(dir, 'a'));
    const q = new MqttQueue(store, 3, log);
    for (let i = 0; i < 5; i++) q.push(`t/${i}`, `p${i}`);
    assert.equal(q.size, 3);
    assert.equal(q.dropped, 2);
    const first = q.take()!;
    assert.equal(first.topic, 't/2');
    q.ack(first.seq);
    const second = q.take()!; // in flight, never acknowledged: must come back after a restart
    assert.equal(second.topic, 't/3');
    await store.root.committed;
    await store.close();
    store = openEventsStore(join(dir, 'a'));
    const again = new MqttQueue(store, 3, log);
    assert.equal(again.load(), 2);
    assert.deepEqual([again.take()!.topic, again.take()!.topic], ['t/3', 't/4']);
    again.requeueInflight();
    assert.equal(again.take()!.topic, 't/3', 'a lost connection puts in-flight messages back in front');
    await store.close();
  });

  it('the outbox refuses past outbox_max_pending (logged failed, redeliverable) and prunes the log', async () => {
    const store = openEventsStore(join(dir, 'b'));
    const outbox = new Outbox(store, { logSize: 2, maxPending: 2 }, log);
    const ev = (i: number) => ({ id: `e${i}`, type: 'face_detected' as const });
    const recs = [0, 1, 2].map((i) => outbox.enqueue('w1', ev(i), `{"i":${i}}`));
    assert.deepEqual(
      recs.map((r) => r.status),
      ['pending', 'pending', 'failed'],
    );
    assert.match(recs[2]!.last_error!, /outbox full/);
    assert.equal(outbox.pending, 2);
    assert.equal(outbox.overflowed, 1);
    for (let i = 0; i < 2; i++) {
      const job = outbox.takeDue(Date.now() + 1, () => true)!;
      job.attempts = 1;
      outbox.finish(job, { status: 'delivered', statusCode: 200, error: null });
    }
    await outbox.settled();
    const log2 = outbox.list('w1', 10);
    assert.equal(log2.length, 2, 'delivery_log_size 2: the oldest finished record was pruned');
    assert.deepEqual(
      log2.map((d) => d.status),
      ['delivered', 'delivered'],
    );
    assert.equal(outbox.pending, 0);
    await store.close();
  });
});
