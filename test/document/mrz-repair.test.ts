import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FORMATS, MRZ_ALPHABET } from '../../src/modules/document/mrz-format.js';
import { parseMrz } from '../../src/modules/document/mrz-parser.js';
import { distFromChar, distsFromLine, fillNameTail, repairMrz, type SlotDist } from '../../src/modules/document/mrz-repair.js';

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
const TD1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];

const set = (line: string, pos: number, c: string) => line.slice(0, pos) + c + line.slice(pos + 1);
const repair = (format: keyof typeof FORMATS, lines: string[]) =>
  repairMrz(
    FORMATS[format],
    lines.map((l) => distsFromLine(l)),
  ).lines;

/** Slots of `lines` where some positions were read uncertainly: [line, pos, read, runner-up]. */
function uncertain(lines: string[], spots: [number, number, string, string][]): SlotDist[][] {
  const slots = lines.map((l) => distsFromLine(l));
  for (const [li, pos, read, alt] of spots) {
    const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
    d[MRZ_ALPHABET.indexOf(read)] = 0.55;
    d[MRZ_ALPHABET.indexOf(alt)] = 0.4;
    slots[li]![pos] = d;
  }
  return slots;
}

// TD3 line 2 positions: 0-8 number, 9 check, 10-12 nationality, 13-18 birth date, 19 check,
// 20 sex, 21-26 expiry, 27 check, 28-41 personal number, 42 its check, 43 composite.
describe('MRZ repair: field classes', () => {
  it('turns letters in dates and check digits into the digits they resemble', () => {
    const l2 = set(set(set(TD3[1]!, 15, 'O'), 22, 'Z'), 19, 'Z'); // 740812 -> 74O812, 120415 -> 1Z0415, check 2 -> Z
    assert.deepEqual(repair('TD3', [TD3[0]!, l2]), TD3);
  });

  it('turns digits in country codes and the names into the letters they resemble', () => {
    const l1 = set(set(TD3[0]!, 4, '0'), 10, '5'); // UTO -> UT0, ERIKSSON -> ERIKS5ON
    const l2 = set(TD3[1]!, 12, '0'); // nationality UTO -> UT0
    assert.deepEqual(repair('TD3', [l1, l2]), TD3);
  });
});

describe('MRZ repair: check digits', () => {
  it('fixes an O/0 confusion inside an alphanumeric document number with its check digit', () => {
    const l1 = set(TD1[0]!, 13, 'O'); // TD1 number D23145890 -> D2314589O
    assert.deepEqual(repair('TD1', [l1, TD1[1]!, TD1[2]!]), TD1);
  });

  it('fixes a B/8 confusion in the personal number through its own check digit', () => {
    const l2 = set(TD3[1]!, 31, 'B'); // ZE184226B -> ZE1B4226B, read with 8 a close second
    assert.deepEqual(repairMrz(FORMATS.TD3, uncertain([TD3[0]!, l2], [[1, 31, 'B', '8']])).lines, TD3);
  });

  it('fixes two confusions in one field when no single change holds', () => {
    const l2 = set(set(TD3[1]!, 1, 'B'), 5, 'O'); // L898902C3 -> LB989O2C3
    const slots = uncertain(
      [TD3[0]!, l2],
      [
        [1, 1, 'B', '8'],
        [1, 5, 'O', '0'],
      ],
    );
    assert.deepEqual(repairMrz(FORMATS.TD3, slots).lines, TD3);
  });

  it('leaves a clearly printed wrong check digit wrong (parsed, check_digits_valid false)', () => {
    const l2 = set(TD3[1]!, 9, '3'); // printed 3, computed 6
    // A clear print: the recogniser gives look-alikes almost no probability.
    const out = repairMrz(
      FORMATS.TD3,
      [TD3[0]!, l2].map((l) => distsFromLine(l, 0.001)),
    ).lines;
    assert.equal(out[1], l2);
    const parsed = parseMrz(out)!;
    assert.equal(parsed.result.document_number, 'L898902C3');
    assert.equal(parsed.result.check_digits_valid, false);
  });

  it('does not break a check that held to satisfy another', () => {
    const l2 = set(TD3[1]!, 43, '5'); // composite misprinted; the individual checks hold
    const parsed = parseMrz(repair('TD3', [TD3[0]!, l2]))!;
    for (const name of ['doc', 'dob', 'exp', 'pers']) assert.equal(parsed.checks.find((c) => c.name === name)!.valid, true, name);
  });

  it('uses the probabilities: the runner-up the recogniser saw wins over a look-alike', () => {
    const slots: SlotDist[][] = TD1.map((l) => distsFromLine(l));
    // Birth-date check digit read as 8 with 2 a close second (8 and 2 are no look-alikes).
    const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
    d[MRZ_ALPHABET.indexOf('8')] = 0.6;
    d[MRZ_ALPHABET.indexOf('2')] = 0.35;
    slots[1]![6] = d;
    assert.equal(repairMrz(FORMATS.TD1, slots).lines[1], TD1[1]);
  });
});

describe('MRZ repair: structure', () => {
  it('pads a names field after three fillers (a K or C read there is a filler)', () => {
    const line = [...'MUSTERMANN<<ERIKA<<<K<<K<<KK<<'];
    fillNameTail(line, { line: 2, start: 0, end: 30 });
    assert.equal(line.join(''), 'MUSTERMANN<<ERIKA<<<<<<<<<<<<<');
    const keep = [...'ERIK<<ANNA<K<<<<<<<<<<<<<<<<<<'];
    fillNameTail(keep, { line: 2, start: 0, end: 30 });
    assert.equal(keep.join(''), 'ERIK<<ANNA<K<<<<<<<<<<<<<<<<<<');
  });

  // Regression (issue 15): a nationality was "repaired" into a listed code that is not printed (132 -> MMR).
  it('never replaces a country code by a listed one: an unlisted code is returned as printed', () => {
    const slots = ['P<EYYERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', TD3[1]!].map((l) => distsFromLine(l));
    const d = distFromChar('Y');
    d[MRZ_ALPHABET.indexOf('G')] = 0.2; // EGY (Egypt) is close in probability, and still not printed
    slots[0]![3] = d;
    assert.equal(repairMrz(FORMATS.TD3, slots).lines[0]!.slice(2, 5), 'EYY');
    // A code printed in digits, read with certainty, stays digits.
    const numeric = [TD3[0]!, set(set(set(TD3[1]!, 10, '1'), 11, '3'), 12, '2')].map((l) => distsFromLine(l, 0.01));
    for (const pos of [10, 11, 12]) numeric[1]![pos]![MRZ_ALPHABET.indexOf('132'[pos - 10]!)] = 0.97;
    assert.equal(repairMrz(FORMATS.TD3, numeric).lines[1]!.slice(10, 13), '132');
  });

  // Regression (issue 15): K<< read as <<< wiped the given names.
  it('reads a letter before the separator (K<< seen as <<<) instead of wiping the given names', () => {
    const span = { line: 2, start: 0, end: 30 };
    const slots = distsFromLine('BLAC<<<ANNA<MARIA<<<<<<<<<<<<<');
    const k = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
    k[MRZ_ALPHABET.indexOf('<')] = 0.6;
    k[MRZ_ALPHABET.indexOf('K')] = 0.35;
    slots[4] = k;
    const line = [...'BLAC<<<ANNA<MARIA<<<<<<<<<<<<<'];
    fillNameTail(line, span, slots);
    assert.equal(line.join(''), 'BLACK<<ANNA<MARIA<<<<<<<<<<<<<');
    // A one-letter name part between fillers (<K<< seen as <<<<).
    const single = [...'MUSTER<<<<ANNA<<<<<<<<<<<<<<<<'];
    const s2 = distsFromLine(single.join(''));
    s2[7] = k;
    fillNameTail(single, span, s2);
    assert.equal(single.join(''), 'MUSTER<K<<ANNA<<<<<<<<<<<<<<<<');
    // Junk after the padding, where no letter was seen inside the run, is still cleared.
    const junk = [...'MUSTERMANN<<ERIKA<<<K<<K<<KK<<'];
    fillNameTail(junk, span, distsFromLine(junk.join('')));
    assert.equal(junk.join(''), 'MUSTERMANN<<ERIKA<<<<<<<<<<<<<');
  });
});
