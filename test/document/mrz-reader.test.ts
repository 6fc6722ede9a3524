import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Quad } from '../../src/modules/document/geometry.js';
import { FORMATS, MRZ_ALPHABET } from '../../src/modules/document/mrz-format.js';
import { growAcross } from '../../src/modules/document/mrz-locator.js';
import { namesUncertain, rowsToReadAgain } from '../../src/modules/document/mrz-reread.js';
import { distsFromLine } from '../../src/modules/document/mrz-repair.js';

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
const TD1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];

/** Slots of clearly read lines, with one position read as `read` 0.5 / `alt` 0.45. */
function withDoubt(lines: string[], line: number, pos: number, read: string, alt: string) {
  const slots = lines.map((l) => distsFromLine(l, 0.001));
  const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
  d[MRZ_ALPHABET.indexOf(read)] = 0.5;
  d[MRZ_ALPHABET.indexOf(alt)] = 0.45;
  slots[line]![pos] = d;
  return slots;
}

describe('MRZ reader: when to read a zone again', () => {
  it('asks for more reads when a names character is uncertain (names carry no check digit)', () => {
    assert.equal(namesUncertain(FORMATS.TD3, withDoubt(TD3, 0, 20, 'N', 'M')), true); // MARIA
    assert.equal(namesUncertain(FORMATS.TD1, withDoubt(TD1, 2, 3, 'K', '<')), true); // ERIKSSON's K
  });

  it('does not for clear names, nor for doubt outside the names (check digits cover that)', () => {
    assert.equal(
      namesUncertain(
        FORMATS.TD3,
        TD3.map((l) => distsFromLine(l, 0.001)),
      ),
      false,
    );
    assert.equal(namesUncertain(FORMATS.TD3, withDoubt(TD3, 1, 3, '8', 'B')), false); // document number
    assert.equal(namesUncertain(FORMATS.TD3, withDoubt(TD3, 0, 3, 'T', '7')), false); // issuing state
  });
});

describe('MRZ reader: which rows the other passes read again', () => {
  const clear = (lines: string[]) => lines.map((l) => distsFromLine(l, 0.001));
  /** The lines with one character replaced, read clearly. */
  const misprinted = (lines: string[], line: number, pos: number, c: string) => lines.map((l, i) => (i === line ? l.slice(0, pos) + c + l.slice(pos + 1) : l));

  it('reads no row again when every row has its length, every check holds and the names are sure', () => {
    assert.deepEqual(rowsToReadAgain([44, 44], 44, clear(TD3)), []);
    assert.deepEqual(rowsToReadAgain([30, 30, 30], 30, clear(TD1)), []);
  });

  it('reads only the names row when only a names character is uncertain', () => {
    assert.deepEqual(rowsToReadAgain([44, 44], 44, withDoubt(TD3, 0, 20, 'N', 'M')), [0]);
    assert.deepEqual(rowsToReadAgain([30, 30, 30], 30, withDoubt(TD1, 2, 3, 'K', '<')), [2]);
  });

  it('reads a row decoded to the wrong length, and the rows a failing check spans', () => {
    assert.deepEqual(rowsToReadAgain([44, 41], 44, clear(TD3)), [1]);
    // A TD3's expiry check digit read clearly wrong: its data and digit are on the second row.
    assert.deepEqual(rowsToReadAgain([44, 44], 44, clear(misprinted(TD3, 1, 27, '3'))), [1]);
    // A TD1's document number check digit: the composite check covers the first two rows.
    assert.deepEqual(rowsToReadAgain([30, 30, 30], 30, clear(misprinted(TD1, 0, 14, '3'))), [0, 1]);
  });
});

describe('MRZ reader: row crops', () => {
  const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

  it('grows a level row about its centre line, keeping its ends', () => {
    const q: Quad = [
      { x: 10, y: 100 },
      { x: 410, y: 100 },
      { x: 410, y: 120 },
      { x: 10, y: 120 },
    ];
    const g = growAcross(q, 1.5);
    assert.deepEqual(
      g.map((p) => [p.x, p.y]),
      [
        [10, 95],
        [410, 95],
        [410, 125],
        [10, 125],
      ],
    );
  });

  it('grows a tilted row across its own direction, not vertically', () => {
    // A row rising at 30 degrees, 20 pixels thick.
    const c = Math.cos(Math.PI / 6);
    const s = Math.sin(Math.PI / 6);
    const at = (u: number, v: number) => ({ x: 100 + u * c + v * s, y: 300 - u * s + v * c });
    const q: Quad = [at(0, -10), at(300, -10), at(300, 10), at(0, 10)];
    const g = growAcross(q, 2);
    const want = [at(0, -20), at(300, -20), at(300, 20), at(0, 20)];
    g.forEach((p, i) => {
      near(p.x, want[i]!.x);
      near(p.y, want[i]!.y);
    });
  });
});
