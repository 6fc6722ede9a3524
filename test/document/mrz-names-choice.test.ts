import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FORMATS } from '../../src/modules/document/mrz-format.js';
import { rowSureness, surerNamesPossible, withSurerNames } from '../../src/modules/document/mrz-names-choice.js';
import { distsFromLine } from '../../src/modules/document/mrz-repair.js';

const NAMES = 'P<D<<HIERDVAASY<<MAJ<<<<<<<<<<<<<<<<<<<<<<<<';
const GROWN = 'PKD<KHIERDVAASYK<MAJSS<<K<KSK<A<SRK<EKSK<<SK';
const DOC = 'QO01999790D<<6909068X2103031IASHG<<<<<<<<<14';

describe('names row read in a tight crop (issue 15)', () => {
  // The grown crops read a names row's fillers as K and S (three reads averaged, each unsure); a tight crop of the same
  // row read it right and surely. Names carry no check digit: the surer reading is the only evidence.
  it('takes the names row the recogniser is clearly surer of, whole', () => {
    const grown = [distsFromLine(GROWN, 0.6), distsFromLine(DOC)];
    const tight = distsFromLine(NAMES, 0.05);
    assert.ok(rowSureness(tight) > rowSureness(grown[0]!) + 0.05);
    const out = withSurerNames(FORMATS.TD3, grown, tight);
    assert.equal(out[0], tight);
    assert.equal(out[1], grown[1]);
  });

  it('keeps the fused row when the other is not clearly surer, or lost the padding the fused row has', () => {
    const grown = [distsFromLine(NAMES, 0.05), distsFromLine(DOC)];
    assert.equal(withSurerNames(FORMATS.TD3, grown, distsFromLine(GROWN, 0.05))[0], grown[0]);
    const unsure = [distsFromLine(NAMES, 0.6), distsFromLine(DOC)];
    // Surer, but its names run to the field's end in C where the fused row ends in fillers.
    const noPadding = distsFromLine(NAMES.slice(0, 20) + 'C'.repeat(24), 0.01);
    assert.equal(withSurerNames(FORMATS.TD3, unsure, noPadding)[0], unsure[0]);
    assert.equal(withSurerNames(FORMATS.TD3, unsure, undefined)[0], unsure[0]);
  });

  // Whether the tight read is worth making: it replaces the row only when surer by 0.05, and no row is surer than 1.
  it('rules the tight read out only where no reading could replace the row, whatever the other reads bring', () => {
    const sure = distsFromLine(NAMES, 0.01);
    assert.ok(rowSureness(sure) > 0.95);
    assert.equal(surerNamesPossible(sure), false);
    // Positions still to be fused count at 0.5, the least a fused position can fall to: two of 44 leave no chance...
    assert.equal(surerNamesPossible(sure, new Set([3, 20])), false);
    // ...but half the row, or the row read whole, might.
    assert.equal(surerNamesPossible(sure, new Set(Array.from({ length: 22 }, (_, k) => k))), true);
    assert.equal(surerNamesPossible(sure, 'every'), true);
    // A row unsure enough that a surer reading could replace it.
    const unsure = distsFromLine(GROWN, 0.6);
    assert.equal(surerNamesPossible(unsure), true);
    assert.equal(withSurerNames(FORMATS.TD3, [unsure, distsFromLine(DOC)], sure)[0], sure);
  });
});
