import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withoutBlindFillerReads, type AlignedRead } from '../../src/modules/document/mrz-second-look.js';
import { distsFromLine } from '../../src/modules/document/mrz-repair.js';
import { distsToText, fuse } from '../../src/modules/document/mrz-slots.js';

/** A read of `text` (one character a position, ' ' where the read does not reach), as a crop of part of the row or the first read. */
function read(text: string, blindToFillers: boolean): AlignedRead {
  const dists = distsFromLine(text.replace(/ /g, '<'), 0.05);
  return { slots: dists.map((dist, k) => ({ dist, weight: text[k] === ' ' ? 0 : 1 })), blindToFillers };
}

describe("crops blind to fillers in the reader's second look (issue 15)", () => {
  // A first read with the names padding right, and two passes of a crop of the padding that decoded it as letters
  // (seed 1232213164 #0 read five fillers `KKA`; seed 2085324373 #259 came back `…<<AA<<AAAAAAAKAAKK…`).
  it('keeps the fillers the first read saw against crops that decoded none', () => {
    const first = read('PSNFKPYSXAALRIEKAA<<<<<<<<', false);
    const crop = read('                  KKAKKAKK', true);
    assert.equal(distsToText(fuse([first.slots, crop.slots, crop.slots])), 'PSNFKPYSXAALRIEKAAKKAKKAKK');
    assert.equal(distsToText(fuse(withoutBlindFillerReads([first, crop, crop]))), 'PSNFKPYSXAALRIEKAA<<<<<<<<');
  });

  // Seed 712978704 #1369, a row read in windows: `RAELDRUK<<<<<<<` and `DUKAAAAAAAAAAAAA` over the same padding (here made to agree on the letters).
  it('lets a window that read fillers outvote one that read none, where both reach', () => {
    const seeing = read('RAELDRUK<<<<<<<         ', false);
    const blind = read('     RUKAAAAAAAAAAAAAAAA', true);
    const out = distsToText(fuse(withoutBlindFillerReads([seeing, blind, seeing, blind])));
    // Where only the blind window reaches it still counts: no other read saw a filler there.
    assert.equal(out, 'RAELDRUK<<<<<<<AAAAAAAAA');
  });

  it('leaves a crop that decoded no filler as it was where no read saw one (a document number)', () => {
    const first = read('L898902C36UTO7408122F1204159', false);
    const crop = read('   8902C36U                 ', true);
    const kept = withoutBlindFillerReads([first, crop]);
    assert.deepEqual(
      kept[1]!.map((s) => s.weight),
      crop.slots.map((s) => s.weight),
    );
  });
});
