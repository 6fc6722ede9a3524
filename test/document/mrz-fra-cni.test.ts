import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FORMATS, looksFraCni, pickFormat } from '../../src/modules/document/mrz-format.js';
import { detectFormat, EXPIRY_NOT_IN_MRZ, parseMrz } from '../../src/modules/document/mrz-parser.js';
import { distsFromLine, repairMrz } from '../../src/modules/document/mrz-repair.js';
import { mrzConfidence } from '../../src/modules/document/mrz-confidence.js';
import { plausible } from '../../src/modules/document/mrz-reading-score.js';
import { namesLineInDoubt } from '../../src/modules/document/mrz-names-choice.js';
import { randomIdentity, Rng } from '../fixtures/mrz-docs/identity.js';

// The public specimen of the French national identity card (1988-2021), as printed on it and in
// public MRZ libraries' tests: once with the office code filled, once with fillers. The check
// digits are the specimen's own, so they test the layout's check ranges, not this code's idea of them.
const SPECIMEN = ['IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<', '8806923102858CORINNE<<<<<<<6512068F6'];
const SPECIMEN_OFFICE = ['IDFRABERTHIER<<<<<<<<<<<<<<<<<92C001', '8806923102858CORINNE<<<<<<<6512068F8'];

/** The names of the checks a zone's lines fail, in the parser's order. */
function failingChecks(lines: string[]): string[] {
  return parseMrz(lines)!
    .checks.filter((c) => !c.valid)
    .map((c) => c.name);
}

describe('French national identity card (FRA_CNI) parser', () => {
  it("parses the public specimen into the spec's fields, its own check digits holding", () => {
    for (const lines of [SPECIMEN, SPECIMEN_OFFICE]) {
      const p = parseMrz(lines);
      assert.ok(p);
      assert.equal(p.format, 'FRA_CNI');
      assert.deepEqual(p.result, {
        mrz_type: 'TD2',
        layout: 'FRA_CNI',
        document_code: 'ID',
        document_number: '880692310285',
        surname: 'BERTHIER',
        given_names: 'CORINNE',
        nationality: 'FRA',
        date_of_birth: '651206',
        sex: 'F',
        expiry_date: '',
        issuing_country: 'FRA',
        raw_mrz: lines,
        check_digits_valid: true,
      });
      assert.deepEqual(
        p.checks.map((c) => [c.name, c.valid]),
        [
          ['doc', true],
          ['dob', true],
          ['comp', true],
        ],
      );
    }
    assert.equal(parseMrz(SPECIMEN_OFFICE)!.optional_data, '92C001');
  });

  it('reports each failing check: card number, birth date, and the last digit over both rows (names included)', () => {
    const badNumber = ['IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<', '8806923102857CORINNE<<<<<<<6512068F6'];
    assert.deepEqual(failingChecks(badNumber), ['doc', 'comp']);
    const badDob = ['IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<', '8806923102858CORINNE<<<<<<<6512069F6'];
    assert.deepEqual(failingChecks(badDob), ['dob', 'comp']);
    // A surname misread (BERTHIER as BERTH1ER is impossible in a name; BERTHIEP is not): only the composite catches it.
    const badName = ['IDFRABERTHIEP<<<<<<<<<<<<<<<<<<<<<<<', SPECIMEN[1]!];
    const p = parseMrz(badName)!;
    assert.equal(p.result.check_digits_valid, false);
    assert.deepEqual(failingChecks(badName), ['comp']);
  });

  it('separates given names printed with << and name parts with single spaces, cut at the 14-character field as printed', () => {
    const id = randomIdentity(new Rng(3), { format: 'FRA_CNI', surname: 'DE<LA<FONTAINE', given: 'JEAN<PIERRE<<LOUIS' });
    assert.equal(id.lines[1]!.slice(13, 27), 'JEAN<PIERRE<<L');
    const p = parseMrz(id.lines)!;
    assert.equal(p.result.surname, 'DE LA FONTAINE');
    assert.equal(p.result.given_names, 'JEAN PIERRE L');
    assert.equal(p.result.check_digits_valid, true);
  });

  it('parses 300 generated French cards into the fields they were made from', () => {
    const rng = new Rng(1515);
    for (let i = 0; i < 300; i++) {
      const id = randomIdentity(rng, 'FRA_CNI');
      const p = parseMrz(id.lines);
      assert.ok(p, id.lines.join(' / '));
      assert.deepEqual(p.result, id.expected, id.lines.join(' / '));
    }
  });
});

describe('FRA_CNI and ICAO TD2 are told apart by IDFRA and structure', () => {
  it('never takes an ICAO TD2 for the French layout, even one issued by France with code ID', () => {
    const rng = new Rng(1516);
    for (let i = 0; i < 300; i++) {
      const id = randomIdentity(rng, { format: 'TD2', issuer: 'FRA' });
      const lines = ['ID' + id.lines[0]!.slice(2), id.lines[1]!];
      assert.equal(detectFormat(lines)?.name, 'TD2', lines.join(' / '));
      assert.equal(
        pickFormat(
          2,
          36,
          lines.map((l) => distsFromLine(l)),
        ).name,
        'TD2',
        lines.join(' / '),
      );
      const p = parseMrz(lines)!;
      assert.equal(p.result.layout, 'ICAO');
      assert.equal(p.result.check_digits_valid, true, lines.join(' / '));
    }
  });

  it('never reads a French card as an ICAO TD2, from its text or from per-position distributions', () => {
    const rng = new Rng(1517);
    for (let i = 0; i < 300; i++) {
      const id = randomIdentity(rng, 'FRA_CNI');
      assert.equal(detectFormat(id.lines)?.name, 'FRA_CNI', id.lines.join(' / '));
      assert.equal(
        pickFormat(
          2,
          36,
          id.lines.map((l) => distsFromLine(l)),
        ).name,
        'FRA_CNI',
        id.lines.join(' / '),
      );
    }
  });

  it('needs IDFRA (one character misread allowed) and the structure: either alone is not enough', () => {
    const [r1, r2] = SPECIMEN as [string, string];
    assert.equal(looksFraCni(r1, r2), true);
    assert.equal(looksFraCni('IDFPA' + r1.slice(5), r2), true);
    assert.equal(looksFraCni('IDGBR' + r1.slice(5), r2), false);
    assert.equal(looksFraCni('I<FRA' + r1.slice(5), r2), true);
    // An ICAO TD2's second row: nationality letters and a birth date where the card has its serial and given names.
    assert.equal(looksFraCni(r1, 'D231458907UTO7408122F1204159<<<<<<<6'), false);
    // A visa is a visa.
    assert.equal(detectFormat(['V' + r1.slice(1), r2])?.name, 'MRVB');
  });
});

describe('FRA_CNI through repair, plausibility and confidence', () => {
  it("repairs with the layout's own classes and checks: a misread surname letter the composite asks for is put right", () => {
    const slots = SPECIMEN.map((l) => distsFromLine(l));
    // BERTHIER's R read as a P with the R a close second: the composite (over both rows) settles it.
    const wrong = 'IDFRABERTHIEP<<<<<<<<<<<<<<<<<<<<<<<';
    const line = distsFromLine(wrong);
    line[12]![27] = 0.5; // 'R' (index 27 of the MRZ alphabet)
    const repaired = repairMrz(FORMATS.FRA_CNI, [line, slots[1]!]);
    assert.deepEqual(repaired.lines, SPECIMEN);
  });

  it('is a plausible zone with no expiry date, and warns that the MRZ holds none', () => {
    const p = parseMrz(SPECIMEN)!;
    assert.equal(plausible(p), true);
    const slots = SPECIMEN.map((l) => distsFromLine(l));
    const conf = mrzConfidence(FORMATS.FRA_CNI, slots, SPECIMEN, p.checks);
    assert.deepEqual(conf.warnings, [EXPIRY_NOT_IN_MRZ]);
    assert.equal(conf.field_confidence.expiry_date, undefined);
    for (const f of ['document_code', 'issuing_country', 'document_number', 'surname', 'given_names', 'nationality', 'date_of_birth', 'sex'] as const) assert.ok(conf.field_confidence[f]! > 0.8, f);
  });

  it("takes the surname's row for the extra names passes when a surname letter is in doubt", () => {
    const slots = SPECIMEN.map((l) => distsFromLine(l));
    assert.equal(namesLineInDoubt(2, 36, slots), undefined);
    // BERTHIER's H read as H or N alike.
    slots[0]![9]![17] = 0.45;
    slots[0]![9]![23] = 0.45;
    assert.equal(namesLineInDoubt(2, 36, slots), 0);
  });

  it("keeps the layout's own IDFRA when one of its characters read otherwise", () => {
    const slots = SPECIMEN.map((l) => distsFromLine(l));
    // The A of FRA read surely as a V (a glyph lost at the row's start): the layout was picked on
    // the other four, and every such card prints IDFRA.
    slots[0]![4] = distsFromLine('V')[0]!;
    assert.equal(pickFormat(2, 36, slots).name, 'FRA_CNI');
    assert.deepEqual(repairMrz(FORMATS.FRA_CNI, slots).lines, SPECIMEN);
  });

  it('is plausible with names that fill both fields and leave no filler at all', () => {
    const rng = new Rng(1518);
    let found = 0;
    for (let i = 0; i < 40 && found < 3; i++) {
      const id = randomIdentity(rng, { format: 'FRA_CNI', surname: 'ABCDEFGHIJKLMNOPQRSTUVWXY', given: 'ABCDEFGHIJKLMN' });
      if (id.lines.join('').includes('<')) continue;
      found++;
      assert.equal(plausible(parseMrz(id.lines)!), true, id.lines.join(' / '));
    }
    assert.ok(found > 0);
  });
});
