import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FORMATS } from '../../src/modules/document/mrz-format.js';
import { rowSureness, withSurerNames } from '../../src/modules/document/mrz-names-choice.js';
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
});
