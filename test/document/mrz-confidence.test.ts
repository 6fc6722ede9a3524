import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mrzConfidence } from '../../src/modules/document/mrz-confidence.js';
import { FORMATS, MRZ_ALPHABET } from '../../src/modules/document/mrz-format.js';
import { parseMrz } from '../../src/modules/document/mrz-parser.js';
import { distsFromLine, repairMrz } from '../../src/modules/document/mrz-repair.js';

const idx = (c: string) => MRZ_ALPHABET.indexOf(c);

describe('field certainty counts only rivals the position admits', () => {
  // Regression (issue 15): warnings fired on 64% of correct reads, many for an O whose runner-up was a 0 in a name, where repair never picks a digit.
  it('does not call a name uncertain for a digit look-alike', () => {
    const lines = ['P<UTOMAUS<<NOAH<<<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
    const slots = distsFromLine(lines[0]!, 0.05).concat([]);
    const names = slots.map((d) => new Float32Array(d));
    // The O of NOAH (line 0, position 12) read 0.55 O against 0.45 zero.
    names[12]!.fill(0.0001);
    names[12]![idx('O')] = 0.55;
    names[12]![idx('0')] = 0.45;
    const all = [names, distsFromLine(lines[1]!, 0.05)];
    const format = FORMATS.TD3;
    const repaired = repairMrz(format, all).lines;
    assert.deepEqual(repaired, lines);
    const parsed = parseMrz(repaired)!;
    const conf = mrzConfidence(format, all, repaired, parsed.checks);
    assert.ok(!conf.warnings.includes('given_names_uncertain'), conf.warnings.join(','));
    // The same split between two letters is doubtful and says so.
    names[12]!.fill(0.0001);
    names[12]![idx('O')] = 0.55;
    names[12]![idx('Q')] = 0.45;
    const conf2 = mrzConfidence(format, all, repaired, parsed.checks);
    assert.ok(conf2.warnings.includes('given_names_uncertain'), conf2.warnings.join(','));
  });

  // Regression (issue 15): a TD1 card in Liberation Mono whose document code ID the recogniser read surely; the OCR-B
  // templates took its D for a 0, no check digit covers the code, and the wrong read came back valid with no warning.
  it('calls a field uncertain where glyph evidence overturned a sure read that no check digit covers', () => {
    const lines = ['I0KAZPYV1788701<<<<<<<<<<<<<<<', '3407208F2301125KAZK<<<<<<<<<<0', 'XOOST<<SCHOUQMYTZ<<<<<<<<<<<<<'];
    const format = FORMATS.TD1;
    const recognised = lines.map((l) => distsFromLine(l, 0.02));
    recognised[0]![1]!.fill(0.0001);
    recognised[0]![1]![idx('D')] = 0.9;
    recognised[0]![1]![idx('0')] = 0.08;
    const weighed = recognised.map((line) => line.map((d) => new Float32Array(d)));
    weighed[0]![1]!.fill(0.0001);
    weighed[0]![1]![idx('0')] = 0.9;
    weighed[0]![1]![idx('D')] = 0.08;
    const repaired = repairMrz(format, weighed).lines;
    assert.equal(repaired[0], lines[0]);
    const parsed = parseMrz(repaired)!;
    assert.equal(parsed.result.check_digits_valid, true);
    const conf = mrzConfidence(format, weighed, repaired, parsed.checks, recognised);
    assert.ok(conf.warnings.includes('document_code_uncertain'), conf.warnings.join(','));
    // The glyphs alone (no recogniser read to compare) or agreeing with the recogniser: no warning.
    assert.ok(!mrzConfidence(format, weighed, repaired, parsed.checks).warnings.includes('document_code_uncertain'));
    assert.ok(!mrzConfidence(format, weighed, repaired, parsed.checks, weighed).warnings.includes('document_code_uncertain'));
  });
});

describe('given names read as none', () => {
  // Regression (issue 15): a tilted visa's one-letter given name `K` (capture bench, seed 1861826630, index 51)
  // read as a filler at 0.91 against the K: the names field read as a surname alone, every check held, and no
  // warning said that the whole field hung on one cell no check digit covers.
  it('calls absent given names uncertain unless every cell of the field is nearly sure', () => {
    const lines = ['V<LAOCIESMOOQ<<<<<<<<<<<<<<<<<<<<<<<', '45615162<0LAO7911152X3911235<<<<<<<<'];
    const format = FORMATS.MRVB;
    const slots = lines.map((l) => distsFromLine(l, 0.001));
    const parsed = parseMrz(lines)!;
    assert.equal(parsed.result.given_names, '');
    assert.ok(!mrzConfidence(format, slots, lines, parsed.checks).warnings.includes('given_names_uncertain'));
    // The cell after the separator: a filler at 0.91 against a K.
    slots[0]![15]!.fill(0.0001);
    slots[0]![15]![idx('<')] = 0.9;
    slots[0]![15]![idx('K')] = 0.09;
    const conf = mrzConfidence(format, slots, lines, parsed.checks);
    assert.ok(conf.warnings.includes('given_names_uncertain'), conf.warnings.join(','));
    // The same doubt where given names were read is below the ordinary bar of 0.8: no warning.
    const named = ['V<LAOCIESMOOQ<<KAI<<<<<<<<<<<<<<<<<<', lines[1]!];
    const namedSlots = named.map((l) => distsFromLine(l, 0.001));
    namedSlots[0]![20]!.fill(0.0001);
    namedSlots[0]![20]![idx('<')] = 0.9;
    namedSlots[0]![20]![idx('K')] = 0.09;
    const namedParsed = parseMrz(named)!;
    assert.ok(!mrzConfidence(format, namedSlots, named, namedParsed.checks).warnings.includes('given_names_uncertain'));
  });
});
