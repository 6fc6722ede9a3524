import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { seriesOf } from '../../src/ui/count-series.js';

const T1 = '2026-11-25T10:00:00.000Z';
const T2 = '2026-11-25T11:00:00.000Z';
const ms = (iso: string) => Date.parse(iso);
const plain = (s: ReturnType<typeof seriesOf>) => Object.fromEntries([...s].map(([k, v]) => [k, Object.fromEntries([...v].map(([t, n]) => [new Date(t).toISOString(), n]))]));

describe('count history chart: series from the history answer', () => {
  it('reads buckets that hold rules', () => {
    const s = seriesOf({
      buckets: [
        { start: T1, lines: [{ rule_id: 'l1', name: 'door', in: 3, out: 1 }] },
        { start: T2, lines: [{ rule_id: 'l1', name: 'door', in: 5, out: 0 }] },
      ],
    });
    assert.deepEqual(plain(s), { 'door in': { [T1]: 3, [T2]: 5 }, 'door out': { [T1]: 1, [T2]: 0 } });
  });

  it('reads rules that hold buckets, zones included', () => {
    const s = seriesOf({ rules: [{ rule_id: 'z1', name: 'shop', buckets: [{ bucket_start: T1, entered: 4, exited: 2, peak_occupancy: 3 }] }] });
    assert.deepEqual(plain(s), { 'shop entered': { [T1]: 4 }, 'shop exited': { [T1]: 2 }, 'shop peak_occupancy': { [T1]: 3 } });
  });

  it('gives no series for an answer without times (nothing is invented)', () => {
    assert.equal(seriesOf({ lines: [{ rule_id: 'l1', in: 3 }] }).size, 0);
    assert.equal(seriesOf([]).size, 0);
    assert.equal(seriesOf(null).size, 0);
    assert.equal(seriesOf({ items: [{ start: 'not a date', in: 1 }] }).size, 0);
  });

  it('keeps points at their bucket time', () => {
    const s = seriesOf([
      { start: T2, in: 2 },
      { start: T1, in: 7 },
    ]);
    assert.deepEqual(
      [...s.get('in')!].sort((a, b) => a[0] - b[0]),
      [
        [ms(T1), 7],
        [ms(T2), 2],
      ],
    );
  });

  // Guards: the chart drew a zero `entered`/`exited`/`peak_occupancy` series for every line from Vigil's own rows.
  it("reads Vigil's counts/history answer (flat rows with type), each rule's own fields only", () => {
    const body = {
      camera_id: 'cam1',
      bucket: '1h',
      from: T1,
      to: '2026-11-25T12:00:00.000Z',
      rows: [
        { rule_id: 'door', type: 'line', start: T1, end: T2, in: 3, out: 1, entered: 0, exited: 0, peak_occupancy: 0 },
        { rule_id: 'shop', type: 'zone', start: T1, end: T2, in: 0, out: 0, entered: 4, exited: 2, peak_occupancy: 3 },
        { rule_id: 'door', type: 'line', start: T2, end: '2026-11-25T12:00:00.000Z', in: 5, out: 0, entered: 0, exited: 0, peak_occupancy: 0 },
      ],
      next_from: null,
    };
    assert.deepEqual(plain(seriesOf(body)), {
      'door in': { [T1]: 3, [T2]: 5 },
      'door out': { [T1]: 1, [T2]: 0 },
      'shop entered': { [T1]: 4 },
      'shop exited': { [T1]: 2 },
      'shop peak_occupancy': { [T1]: 3 },
    });
  });
});
