import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LineRead } from '../../src/modules/document/mrz-slots.js';
import { LOST_CELLS, lostCells, rowsLostInStretches, windowCuts, WINDOW_CELLS, type TimedRow } from '../../src/modules/document/mrz-row-windows.js';
import type { Quad } from '../../src/modules/document/geometry.js';

/** A read that decoded `text`, character i centred at timestep at[i] (a run of `run[i]` timesteps, default 1). */
function read(text: string, at: number[], run: number[] = []): LineRead {
  const chars = [...text].map((_, i) => ({ cls: 1, t0: at[i]!, t1: at[i]! + (run[i] ?? 1) - 1, prob: 0.95 }));
  return { text, chars, confidence: 0.95 };
}

/** Cell centres of a row read at 3 timesteps a cell from timestep 2. */
const cellsAt = (ks: number[]) => ks.map((k) => 2 + 3 * k);
const row = (text: string, ks: number[], run: number[] = []): TimedRow => ({ read: read(text, cellsAt(ks), run), cropWidth: 8 * 134, first: 2, pitch: 3 });
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe('MRZ rows the recogniser lost stretches of, read in windows (issue 15)', () => {
  it('counts no blank in a row read whole, nor in a names row whose padding merged into a few fillers', () => {
    assert.equal(lostCells(row('X'.repeat(44), range(0, 43)).read, 3, { first: 2, last: 2 + 3 * 43 }), 0);
    // Surname, then 30 fillers decoded as three '<' runs with blanks between them.
    const names = row('P<UTOSMITH<<JOHN<<<', [...range(0, 15), 20, 30, 43], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 10, 10, 1]);
    assert.equal(lostCells(names.read, 3, { first: 2, last: 2 + 3 * 43 }), 0);
  });

  // A visa's second row `406972<<<0GHA1612273M2906210<<<<<<<<<<<<<<<<` decoded as `020612220210`.
  it('counts the stretches a collapsed read left blank, and the text lost after its last character', () => {
    const collapsed = row('020612220210', [6, 10, 14, 15, 16, 18, 19, 20, 22, 24, 26, 27]);
    const lost = lostCells(collapsed.read, 3, { first: 2, last: 2 + 3 * 43 });
    assert.ok(lost >= 20, `lost ${lost}`);
    // A TD1 first row read to its document number and no further: 15 fillers lost at its end.
    const stopped = row('IDSYRR987041956', range(0, 14));
    assert.equal(lostCells(stopped.read, 3), 0);
    assert.ok(lostCells(stopped.read, 3, { first: 2, last: 2 + 3 * 29 }) >= LOST_CELLS);
  });

  it('picks the collapsed row, with the sibling that read most as the timing reference, and none when that sibling lost text itself', () => {
    const good = row('V<GHASTILKLYS<<GAENG<WALFOJ<<<<<<<<<<<<<<<<<', range(0, 43));
    const collapsed = row('020612220210', [6, 10, 14, 15, 16, 18, 19, 20, 22, 24, 26, 27]);
    assert.deepEqual(rowsLostInStretches([good, collapsed], 44), { lost: [1], reference: 0, timing: good });
    assert.deepEqual(rowsLostInStretches([collapsed, good], 44), { lost: [0], reference: 1, timing: good });
    assert.deepEqual(rowsLostInStretches([good, row('X'.repeat(44), range(0, 43))], 44).lost, []);
    const bothBad = row('V<GHA' + 'LYS<<GAENG<WALFOJ<<<<<<<<<<<<<<<<<', [...range(0, 4), ...range(15, 43)]);
    assert.deepEqual(rowsLostInStretches([bothBad, collapsed], 44).lost, []);
  });

  it('cuts a row into windows whose inner parts cover every position twice but at the ends, at the reference timing', () => {
    const quad: Quad = [
      { x: 0, y: 0 },
      { x: 1072, y: 0 },
      { x: 1072, y: 40 },
      { x: 0, y: 40 },
    ];
    const cuts = windowCuts(1, quad, row('X'.repeat(44), range(0, 43)), 44);
    const cover = new Array<number>(44).fill(0);
    for (const c of cuts) {
      assert.equal(c.line, 1);
      for (let k = c.span!.inner.start; k <= c.span!.inner.end; k++) cover[k]!++;
      assert.ok(c.span!.span.end - c.span!.span.start + 1 <= WINDOW_CELLS + 4);
      // The cut holds its span: cell k is centred at timestep 2 + 3k, column 8 (2.5 + 3k).
      const x = (k: number) => 8 * (2.5 + 3 * k);
      assert.ok(c.quad[0].x <= x(c.span!.span.start) && c.quad[1].x >= x(c.span!.span.end), JSON.stringify(c.span));
    }
    assert.deepEqual(
      cover.map((n, k) => (k < WINDOW_CELLS / 2 ? n === 1 : n === 2)),
      new Array<boolean>(44).fill(true),
    );
  });
});
