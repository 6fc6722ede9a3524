import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkDigit } from '../../src/modules/document/mrz-format.js';
import { parseMrz, splitNames, type CheckOutcome } from '../../src/modules/document/mrz-parser.js';
import { TESTDATA } from '../helpers/paths.js';

interface Labelled {
  file: string;
  labels: { has_mrz: boolean; mrz_lines?: string[]; mrz_fields?: Record<string, unknown> & { format: string; check_digits_all_valid: boolean } };
}

const manifest = JSON.parse(readFileSync(`${TESTDATA}/MANIFEST.json`, 'utf8')) as { files: Labelled[] };
// The original shared set (documents/mrz) carries parsed `mrz_fields`; the held-back mrz-more
// specimens are labelled in another shape and are scored by bench/eval-documents.ts instead.
const labelled = manifest.files.filter((f) => f.labels?.mrz_lines && f.labels.mrz_fields);

describe('ICAO 9303 check digits', () => {
  it('computes the 7-3-1 digit with A=10..Z=35 and filler 0 (ICAO examples)', () => {
    assert.equal(checkDigit('L898902C3'), 6);
    assert.equal(checkDigit('740812'), 2);
    assert.equal(checkDigit('120415'), 9);
    assert.equal(checkDigit('ZE184226B<<<<<'), 1);
    // TD3 composite: number+check, birth date+check, expiry+check, personal number+check.
    assert.equal(checkDigit('L898902C36' + '7408122' + '1204159' + 'ZE184226B<<<<<1'), 0);
    assert.equal(checkDigit('<<<<<<<<<'), 0);
  });
});

describe('MRZ parser on the labelled shared documents', () => {
  it(`parses all ${labelled.length} labelled zones into the manifest's fields`, () => {
    assert.ok(labelled.length >= 25);
    for (const f of labelled) {
      const e = f.labels.mrz_fields!;
      const p = parseMrz(f.labels.mrz_lines!);
      assert.ok(p, `${f.file}: not parsed`);
      const expectType = e.format === 'MRVA' ? 'TD3' : e.format === 'MRVB' ? 'TD2' : e.format;
      assert.equal(p.format, e.format, f.file);
      assert.equal(p.result.mrz_type, expectType, f.file);
      assert.equal(p.result.document_number, e.document_number, f.file);
      assert.equal(p.result.surname, e.surname, f.file);
      assert.equal(p.result.given_names, e.given_names, f.file);
      // Codes come back without fillers (D<< is "D"), as the spec's "the code" asks.
      assert.equal(p.result.nationality, String(e.nationality).replace(/</g, ''), f.file);
      assert.equal(p.result.issuing_country, String(e.issuing_state).replace(/</g, ''), f.file);
      assert.equal(p.result.date_of_birth, e.birth_date, f.file);
      assert.equal(p.result.expiry_date, e.expiry_date, f.file);
      assert.equal(p.result.sex, e.sex, f.file);
      assert.equal(p.result.document_code, e.document_code, f.file);
      assert.deepEqual(p.result.raw_mrz, f.labels.mrz_lines, f.file);
      assert.equal(p.result.check_digits_valid, e.check_digits_all_valid, f.file);
      // Every check digit the manifest lists agrees, printed and computed.
      const checks = (e.check_digits ?? {}) as Record<string, { printed: string; computed: string }>;
      for (const [name, c] of Object.entries(checks)) {
        const got: CheckOutcome | undefined = p.checks.find((x) => x.name === name);
        assert.ok(got, `${f.file}: check ${name} missing`);
        assert.equal(String(got.computed), c.computed, `${f.file} ${name}`);
      }
    }
  });

  it('reports a wrong check digit as invalid and still parses the fields', () => {
    const lines = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C37UTO7408122F1204159ZE184226B<<<<<10'];
    const p = parseMrz(lines)!;
    assert.equal(p.result.document_number, 'L898902C3');
    assert.equal(p.result.check_digits_valid, false);
    assert.deepEqual(
      p.checks.filter((c) => !c.valid).map((c) => c.name),
      ['doc', 'comp'],
    );
  });

  it('accepts a filler as the personal-number check digit only when that field is empty', () => {
    const ok = parseMrz(['P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<', 'C01X00T478D<<6408125F2702283<<<<<<<<<<<<<<<4'])!;
    assert.equal(ok.checks.find((c) => c.name === 'pers')!.valid, true);
    const bad = parseMrz(['P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<', 'C01X00T478D<<6408125F2702283A<<<<<<<<<<<<<<4'])!;
    assert.equal(bad.checks.find((c) => c.name === 'pers')!.valid, false);
  });

  it('joins a long TD1 document number with its overflow in the optional data', () => {
    // ICAO 9303 part 5 example: number D23145890734, check digit 9 after it.
    const p = parseMrz(['I<UTOD23145890<7349<<<<<<<<<<<', '3407127M9507122UTO<<<<<<<<<<<2', 'STEVENSON<<PETER<JOHN<<<<<<<<<'])!;
    assert.equal(p.result.document_number, 'D23145890734');
    assert.equal(p.checks.find((c) => c.name === 'doc')!.valid, true);
    assert.equal(p.result.check_digits_valid, true);
  });

  it("maps sex X to the spec's unspecified value", () => {
    const p = parseMrz(['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122X1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'])!;
    assert.equal(p.result.sex, '<');
  });

  it('rejects lines that fit no layout', () => {
    assert.equal(parseMrz([]), undefined);
    assert.equal(parseMrz(['P<UTOERIKSSON']), undefined);
    assert.equal(parseMrz(['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<1']), undefined);
    assert.equal(parseMrz(['A'.repeat(40), 'B'.repeat(40)]), undefined);
  });

  it('splits names on the double filler and single fillers', () => {
    assert.deepEqual(splitNames('ERIKSSON<<ANNA<MARIA<<<<<<<'), { surname: 'ERIKSSON', given_names: 'ANNA MARIA' });
    assert.deepEqual(splitNames('UNITED<KINGDOM<TWENTY<SIX<<JODIE<PIPPA<'), { surname: 'UNITED KINGDOM TWENTY SIX', given_names: 'JODIE PIPPA' });
    assert.deepEqual(splitNames('SURNAMEONLY<<<<<<'), { surname: 'SURNAMEONLY', given_names: '' });
    assert.deepEqual(splitNames('<<<<<<'), { surname: '', given_names: '' });
  });
});
