import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkDigit, FORMATS, MRZ_ALPHABET } from '../../src/modules/document/mrz-format.js';
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

describe("MRZ repair: a TD1 card's document code", () => {
  // ICAO leaves the TD1 code's second character to the issuer: letters and fillers everywhere,
  // a digit on US passport cards (C1). Nothing checks it, so only the prior settles a blurred one.
  const code = (read: string, p: number, alt: string, q: number) => {
    const slots = [TD1[0]!, TD1[1]!, TD1[2]!].map((l) => distsFromLine(l));
    const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
    d[MRZ_ALPHABET.indexOf(read)] = p;
    d[MRZ_ALPHABET.indexOf(alt)] = q;
    slots[0]![1] = d;
    return repairMrz(FORMATS.TD1, slots).lines[0]!.slice(0, 2);
  };

  it('reads a letter the recogniser found about as likely as a digit (AC read A0 at 0.36 against 0.33)', () => {
    assert.equal(code('0', 0.36, 'D', 0.33), 'ID');
    assert.equal(code('0', 0.39, 'C', 0.22), 'IC');
  });

  it("keeps a digit read clearly, as a US passport card's C1", () => {
    assert.equal(code('1', 0.85, 'I', 0.1), 'I1');
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

/** Slots of `lines` read surely (look-alikes all but ruled out), with `spots` [line, pos, p] read at p against an unfitting digit. */
function sure(lines: string[], spots: [number, number, number][] = []): SlotDist[][] {
  const slots = lines.map((l) => distsFromLine(l, 1e-4));
  for (const [li, pos, p] of spots) {
    const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
    const c = lines[li]![pos]!;
    d[MRZ_ALPHABET.indexOf(c)] = p;
    d[MRZ_ALPHABET.indexOf(c === '7' ? '1' : '7')] = 1 - p;
    slots[li]![pos] = d;
  }
  return slots;
}

// An MRV-A visa (no composite check): number 0-8, its check 9.
const visa = (number: string) => ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', `${number}${checkDigit(number)}UTO7408122F1204159${'<'.repeat(16)}`];

describe('MRZ repair: look-alikes the recogniser was sure of', () => {
  // Regression (issue 15): O read as 0 with no second guess, the check failing, in every font.
  it('swaps the one O/0 or I/1 the check digit asks for, and only it', () => {
    const want = visa('L898O02C3');
    const read = [want[0]!, set(want[1]!, 4, '0')];
    assert.deepEqual(repairMrz(FORMATS.MRVA, sure(read)).lines, want);
    const withI = visa('L8I8902C3');
    assert.deepEqual(repairMrz(FORMATS.MRVA, sure([withI[0]!, set(withI[1]!, 2, '1')])).lines, withI);
  });

  it('leaves the check failing when its digit was read unsurely (the digit may be the misread)', () => {
    const want = visa('L898O02C3');
    const read = [want[0]!, set(want[1]!, 4, '0')];
    const out = repairMrz(FORMATS.MRVA, sure(read, [[1, 9, 0.6]])).lines;
    assert.equal(out[1], read[1]);
    assert.equal(parseMrz(out)!.result.check_digits_valid, false);
  });

  it('leaves the check failing when two swaps fit as well (0 and 0 at the same weight)', () => {
    const want = visa('O12045678');
    const read = [want[0]!, set(want[1]!, 0, '0')];
    assert.equal(repairMrz(FORMATS.MRVA, sure(read)).lines[1], read[1]);
  });

  // Regression (issue 15, a TD1 in DejaVu Sans Mono): O read as 0 in the document number and in the optional data.
  it('swaps a second look-alike where the composite alone still fails, in data only it covers', () => {
    const l1 = `I<UTO${'O07788'}7<<${checkDigit('O07788' + '7<<')}<<<<<<<<<<<<<<<`;
    const head = `7408122F1204159UTO4QLNIBO<<<<`;
    const want = [l1, head + checkDigit(l1.slice(5, 30) + head.slice(0, 7) + head.slice(8, 15) + head.slice(18, 29)), 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];
    const read = [set(want[0]!, 5, '0'), set(want[1]!, 24, '0'), want[2]!];
    assert.deepEqual(repairMrz(FORMATS.TD1, sure(read)).lines, want);
  });

  // Regression (issue 15, TD3 passports in OCR-B): an O read as 0 in the number and another in the personal
  // number, both their checks failing; the composite, over both, held by chance, and fails after either swap alone.
  describe('a look-alike in the number and one in the personal number', () => {
    const passport = (num: string, pers: string) => {
      const body = `${num}${checkDigit(num)}UTO7408122F1204159${pers}${checkDigit(pers)}`;
      return [TD3[0]!, body + checkDigit(body.slice(0, 10) + body.slice(13, 20) + body.slice(21, 43))];
    };
    it('swaps both when every check over them then holds', () => {
      const want = passport('3OGZJ7NCL', 'OKTQJ9BPS1XD4<');
      const read = [want[0]!, set(set(want[1]!, 1, '0'), 28, '0')];
      assert.equal(parseMrz(read)!.result.check_digits_valid, false);
      assert.deepEqual(repairMrz(FORMATS.TD3, sure(read)).lines, want);
    });

    it('leaves them failing where another 0 in the personal number at the same weight fits as well', () => {
      const want = passport('3OGZJ7NCL', 'OKTQJ9BPS0XD4<');
      const read = [want[0]!, set(set(want[1]!, 1, '0'), 28, '0')];
      assert.equal(repairMrz(FORMATS.TD3, sure(read)).lines[1], read[1]);
    });
  });

  it('needs every check over the swapped character to hold: the composite too', () => {
    // A TD3 whose number reads L8989O2C3 with its own check misprinted to fit and the composite failing: no swap.
    const num = 'L89890' + '2C3';
    const l2 = `${num}${checkDigit('L8989O2C3')}UTO7408122F1204159ZE184226B<<<<<10`;
    const out = repairMrz(FORMATS.TD3, sure([TD3[0]!, l2])).lines;
    assert.equal(out[1]!.slice(0, 9), num);
  });

  // Regression (issue 15): an O read as 0 in a number, and the check made to hold by changing a
  // right digit the recogniser gave a runner-up that fits (L8980 read for L898O, its last 8 made 4).
  describe('against another change that also makes the check hold', () => {
    const want = visa('L898O02C3');
    const read = [want[0]!, set(want[1]!, 4, '0')];
    /** The swap's 0 read at 0.6 with O at 0.1 (odds 6), the fourth character's 8 at 0.6 with 4 at `rival`. */
    const slots = (rival: number) => {
      const s = sure(read);
      const spot = (pos: number, c: string, alt: string, p: number) => {
        const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
        d[MRZ_ALPHABET.indexOf(c)] = 0.6;
        d[MRZ_ALPHABET.indexOf(alt)] = p;
        s[1]![pos] = d;
      };
      spot(4, '0', 'O', 0.1);
      spot(3, '8', '4', rival);
      return s;
    };
    it('swaps the look-alike where the other change is likelier by less than LOOKALIKE_ODDS', () => {
      // The other change's odds are 3, the swap's 6: the swap is two times less likely by the recogniser.
      assert.deepEqual(repairMrz(FORMATS.MRVA, slots(0.2)).lines, want);
    });
    it('makes the other change where the recogniser found it far likelier than the swap', () => {
      // Odds 1.2 against 6: five times likelier.
      assert.equal(repairMrz(FORMATS.MRVA, slots(0.5)).lines[1]!.slice(0, 9), 'L894002C3');
    });
  });
});

describe('MRZ repair: two look-alikes in one number', () => {
  /** `read`, read surely, with `open` positions of its second row read as their character at 0.92 and its look-alike at 0.08. */
  const withOpen = (read: string[], open: number[], partner: Record<string, string>) => {
    const slots = sure(read);
    for (const pos of open) {
      const c = read[1]![pos]!;
      const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
      d[MRZ_ALPHABET.indexOf(c)] = 0.92;
      d[MRZ_ALPHABET.indexOf(partner[c]!)] = 0.08;
      slots[1]![pos] = d;
    }
    return slots;
  };
  const partner = { '0': 'O', O: '0' };
  // Regression (issue 15, a generated TD3 in OCR-B): a number's OO read 00; no single swap moves the
  // check digit by as much as the pair does, and the glyph evidence left both O open.
  it('swaps both where the pixels left both open and the pair alone fits', () => {
    const want = visa('L8OO902C3');
    const read = [want[0]!, set(set(want[1]!, 2, '0'), 3, '0')];
    assert.deepEqual(repairMrz(FORMATS.MRVA, withOpen(read, [2, 3], partner)).lines, want);
  });

  it('leaves the check failing where the recogniser all but ruled the look-alikes out', () => {
    const want = visa('L8OO902C3');
    const read = [want[0]!, set(set(want[1]!, 2, '0'), 3, '0')];
    const out = repairMrz(FORMATS.MRVA, sure(read)).lines;
    assert.equal(out[1], read[1]);
    assert.equal(parseMrz(out)!.result.check_digits_valid, false);
  });

  it('leaves the check failing where another pair fits as well', () => {
    const want = visa('L8OO902C3');
    const read = [want[0]!, set(set(want[1]!, 2, '0'), 3, '0')];
    // The 0 at 5 carries the same weight as the one at 2: pairs (2, 3) and (3, 5) move the digit alike.
    const out = repairMrz(FORMATS.MRVA, withOpen(read, [2, 3, 5], partner)).lines;
    assert.equal(out[1], read[1]);
    assert.equal(parseMrz(out)!.result.check_digits_valid, false);
  });
});

describe('MRZ repair: check digits read as fillers', () => {
  // Regression (issue 15): a passport cut at 36 characters ends its second row in padding where a TD2's
  // composite digit sits; the repair made that filler whatever digit the check asked for, and the passport
  // passed every TD2 check.
  it('does not make a filler read surely at a composite digit into the digit the check asks for', () => {
    const td2 = ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6'];
    const read = [td2[0]!, set(td2[1]!, 35, '<')];
    const slots = read.map((l) => distsFromLine(l));
    // The filler a tenth as likely to be a 6 as a filler: no digit was seen there.
    slots[1]![35]![MRZ_ALPHABET.indexOf('6')] = 0.09;
    const out = repairMrz(FORMATS.TD2, slots).lines;
    assert.equal(out[1]![35], '<');
    assert.equal(parseMrz(out)!.checks.find((c) => c.name === 'comp')!.valid, false);
    // A digit nearly as likely as the filler is still read.
    slots[1]![35]![MRZ_ALPHABET.indexOf('6')] = 0.5;
    assert.equal(repairMrz(FORMATS.TD2, slots).lines[1], td2[1]);
  });
});

// Regression (issue 15), seed 1275317510 #208 and #204 of the evaluation bench: the K that opens a names field
// (`VDAZEKLOOW…`) and a document number (`IDMNEKIU…`) read as the filler whose chevron it contains.
describe('MRZ repair: fields that do not start with a filler', () => {
  it('reads the letter the recogniser saw, not a filler, first in a names field, the issuing state and a document number', () => {
    const first = (format: keyof typeof FORMATS, lines: string[], li: number, pos: number) => {
      const slots = uncertain(lines, [[li, pos, '<', 'K']]);
      return repairMrz(FORMATS[format], slots).lines[li]![pos];
    };
    const td3 = ['P<UTOKRIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', TD3[1]!];
    assert.equal(first('TD3', td3, 0, 5), 'K'); // the surname's first letter
    assert.equal(first('TD3', ['P<KTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', TD3[1]!], 0, 2), 'K'); // the issuing state's
    const number = 'K89890236';
    const td1 = [`I<UTO${number}${checkDigit(number)}<<<<<<<<<<<<<<<`, TD1[1]!, TD1[2]!];
    assert.equal(first('TD1', td1, 0, 5), 'K');
    // Inside the fields a filler is read where it was seen: a one-letter code's padding, a name's separator.
    assert.equal(repairMrz(FORMATS.TD3, uncertain(TD3, [[0, 13, '<', 'K']])).lines[0]![13], '<');
  });

  it('keeps a blank nationality, and names a few issuers print without a primary identifier', () => {
    // A real Macau identity card of the shared set leaves its nationality blank: `6106225M1212307<<<…`.
    const macau = ['I<MAC12281507<0<<<<<<<<0212300', '6106225M1212307<<<<<<<<<<<<<<6', 'CHONG<<KA<KEONG<<<<<<<<<<<<<<<'];
    assert.equal(repairMrz(FORMATS.TD1, uncertain(macau, [[1, 15, '<', 'K']])).lines[1], macau[1]);
    const given = ['P<UTO<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<<<<<<<<<', TD3[1]!];
    assert.equal(
      repairMrz(
        FORMATS.TD3,
        given.map((l) => distsFromLine(l)),
      ).lines[0],
      given[0],
    );
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

  // Regression (issue 15, a FreeMono TD1): the issuing state GNQ read GNO, unlisted, beside the nationality read GNQ.
  describe('an unlisted code one letter from the listed code in the other country field', () => {
    const want = ['I<GNQD231458907<<<<<<<<<<<<<<<', '7408122F1204159GNQ<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];
    /** The issuing state's last letter read O, with Q at `q` of its probability. */
    const slots = (q: number, lines = want) => {
      const s = lines.map((l) => distsFromLine(l, 1e-4));
      const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
      d[MRZ_ALPHABET.indexOf('O')] = 0.9;
      d[MRZ_ALPHABET.indexOf('Q')] = 0.9 * q;
      s[0]![4] = d;
      return s;
    };
    it('takes the listed code where the recogniser saw its letter there', () => {
      assert.equal(repairMrz(FORMATS.TD1, slots(0.1)).lines[0], want[0]);
    });
    it('keeps the code as read where the recogniser all but ruled the letter out', () => {
      assert.equal(repairMrz(FORMATS.TD1, slots(0.01)).lines[0]!.slice(2, 5), 'GNO');
    });
    it('keeps the code as read beside a listed code two letters away (a holder of another nationality)', () => {
      const other = [want[0]!, set(set(want[1]!, 16, 'B'), 17, 'R'), want[2]!]; // GBR
      assert.equal(repairMrz(FORMATS.TD1, slots(0.3, other)).lines[0]!.slice(2, 5), 'GNO');
    });
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
