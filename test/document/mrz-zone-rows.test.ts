import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canBeMrzRow, opensLikeTd1SecondRow, zoneRowsKept, zoneRowSets } from '../../src/modules/document/mrz-zone-rows.js';

describe('which decoded rows can make a machine-readable zone (issue 15)', () => {
  // Greedy CTC merges a run of fillers, and the detector stops a row's box inside its padding: a TD1
  // names row read as 11 characters was dropped, and with it the zone (422 NO_MRZ).
  it('keeps a short row that ends in fillers, and still drops short text that is not MRZ-like', () => {
    assert.equal(canBeMrzRow('MEINP<<<<<<'), true);
    assert.equal(canBeMrzRow('IDPLWD369Z18ZF1<<<'), true);
    assert.equal(canBeMrzRow('6003069<3403200PLW<'), true);
    assert.equal(canBeMrzRow('H275639609HMD6408077F2204112'), true);
    assert.equal(canBeMrzRow('REPUBLICOFUTOPIA'), false);
    assert.equal(canBeMrzRow('NATIONALITY'), false);
    assert.equal(canBeMrzRow('M1<<<<<'), false);
    assert.equal(canBeMrzRow('PASSPORT<'), false);
  });

  // A TD1 whose first row's box ended with its document number (no filler to tell it was cut) lost that row, and
  // with it the zone: the card answered 422.
  it('keeps a cut row of MRZ data beside a row that surely is one, and no printed words', () => {
    assert.deepEqual(zoneRowsKept(['I<IDNLLZ7605409', '3311271F31020861', 'NOL<<PHAEW<<<<<<']), [true, true, true]);
    assert.deepEqual(zoneRowsKept(['DATEOFBIRTH', 'NOL<<PHAEW<<<<<<']), [false, true]);
    assert.deepEqual(zoneRowsKept(['I<IDNLLZ7605409', '3311271F31020861']), [false, false]);
  });

  // Two rows whose first opens with a birth date are a TD1's lower rows, not a two-line layout (whose first row opens
  // with the document code): read as 36-character rows, a card whose first row the detector missed answered 422.
  it('tells a TD1 second row by its opening birth date and check digit', () => {
    assert.equal(opensLikeTd1SecondRow('3706059<2801186872<<<<<<<<<<<4'), true);
    assert.equal(opensLikeTd1SecondRow('7501O34M3609253BIH<<<<<<<<<<<6'), true); // one look-alike
    assert.equal(opensLikeTd1SecondRow('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<'), false);
    assert.equal(opensLikeTd1SecondRow('L898902C36UTO7408122F1204159ZE184226B<<<<<10'), false);
    assert.equal(opensLikeTd1SecondRow('I<UTOD231458907<<<<<<<<<<<<<<<'), false);
    assert.equal(opensLikeTd1SecondRow('123'), false);
  });

  // A row read twice at the foot of a sloped zone made the last two rows a copy of one row: the zone's first two
  // rows are tried when the last rows fail.
  it('tries the last three rows, the last two, then the first two of a three-row block not as wide as a TD1', () => {
    assert.deepEqual(zoneRowSets(['a', 'b', 'c']), [
      ['a', 'b', 'c'],
      ['b', 'c'],
      ['a', 'b'],
    ]);
    assert.deepEqual(zoneRowSets(['a', 'b']), [['a', 'b']]);
    // Rows 30 characters wide are a TD1's: its first two rows are no two-line zone.
    assert.deepEqual(zoneRowSets(['a', 'b', 'c'], true), [
      ['a', 'b', 'c'],
      ['b', 'c'],
    ]);
  });
});
