import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseMrz } from '../../src/modules/document/mrz-parser.js';
import { randomIdentity, Rng, type ExpectedMrz, type IdentityOverrides } from '../fixtures/mrz-docs/identity.js';
import { generatedDocument, renderDocument, type RenderOptions } from '../fixtures/mrz-docs/render.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';

const FIELDS = ['mrz_type', 'layout', 'document_code', 'document_number', 'surname', 'given_names', 'nationality', 'date_of_birth', 'sex', 'expiry_date', 'issuing_country'] as const;
type Answer = ExpectedMrz & { field_confidence: Record<string, number>; warnings: string[] };

describe('generated ICAO 9303 documents: generator and parser agree', () => {
  it('parses 500 random identities of every layout into the fields they were made from, check digits valid', () => {
    const rng = new Rng(15);
    for (let i = 0; i < 500; i++) {
      const id = randomIdentity(rng);
      const p = parseMrz(id.lines);
      assert.ok(p, id.lines.join(' / '));
      for (const f of FIELDS) assert.equal(p.result[f], id.expected[f], `${f}: ${id.lines.join(' / ')}`);
      assert.equal(p.result.check_digits_valid, true, id.lines.join(' / '));
    }
  });
});

/** The app the describe block running now reads with (each block starts its own: CI's time limit is per block). */
let t: TestApp;
function withApp(): void {
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    await t.close();
  });
}

async function read(seed: number, overrides: IdentityOverrides = {}, opts: RenderOptions = { mild: true }): Promise<{ want: ExpectedMrz; got?: Answer; status: number }> {
  const rng = new Rng(seed);
  const id = randomIdentity(rng, overrides);
  const doc = await renderDocument(id, rng, opts);
  const { payload, headers } = multipart([{ name: 'image', file: doc.image }]);
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload, headers });
  return { want: id.expected, got: res.statusCode === 200 ? (res.json() as Answer) : undefined, status: res.statusCode };
}
/**
 * Document `index` of the evaluation bench's run with `seed` (bench/eval-documents-generated.ts draws them so),
 * as it was drawn before French identity cards joined the corpus (a TD2 stays a TD2; see IdentityOverrides.fraCni).
 */
async function readEvalDoc(seed: number, index: number): Promise<{ want: ExpectedMrz; got?: Answer; status: number; format: string }> {
  const { id, doc } = await generatedDocument(seed, index, { fraCni: false });
  const { payload, headers } = multipart([{ name: 'image', file: doc.image }]);
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload, headers });
  return { want: id.expected, got: res.statusCode === 200 ? (res.json() as Answer) : undefined, status: res.statusCode, format: id.format };
}
const wrongFields = (got: Answer | undefined, want: ExpectedMrz) => (got ? FIELDS.filter((f) => got[f] !== want[f]) : ['(no MRZ)']);

/** Each listed document of the bench's run with `seed` is drawn in its layout, read (200) and fully correct. */
async function assertReadRight(seed: number, cases: readonly (readonly [number, string])[]): Promise<void> {
  for (const [index, format] of cases) {
    const { want, got, status, format: drawn } = await readEvalDoc(seed, index);
    assert.equal(drawn, format);
    assert.equal(status, 200, `${format} #${index}`);
    assert.deepEqual(wrongFields(got, want), [], `${format} #${index}: ${got?.raw_mrz.join(' / ')}`);
  }
}

describe('generated ICAO 9303 documents read through POST /documents/mrz (real PP-OCRv4 models)', () => {
  withApp();

  // The measured level on this set is 10 of 12: the two misses are document numbers with I/1 and
  // O/0 read as their look-alikes, which check digits cannot always catch (II and 11 at weights 7, 3
  // differ by 170, 0 mod 10); both carry a warning. Fewer than 10 is a regression.
  it('reads a fixed-seed set of 12 mildly damaged documents: at least 10 fully correct, no wrong read without a warning', async () => {
    let correct = 0;
    const notes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { want, got, status } = await read(1500 + i);
      const wrong = wrongFields(got, want);
      if (wrong.length === 0) correct++;
      else notes.push(`#${i} ${status} wrong ${wrong.join(',')}: ${got?.raw_mrz.join(' / ')} vs ${want.raw_mrz.join(' / ')}`);
      // A wrong read must never look sure: a failing check or a warning says so.
      if (got && wrong.length > 0) assert.ok(!got.check_digits_valid || got.warnings.length > 0, notes.at(-1));
    }
    assert.ok(correct >= 10, notes.join('\n'));
  });

  // Regression (issue 15): a TD3 passport with long padding decoded to 36-character rows and was reported as TD2.
  it('keeps a 44-character passport a TD3 when its padding is long', async () => {
    const { want, got } = await read(1601, { format: 'TD3', surname: 'LI', given: 'AN' });
    assert.ok(got);
    assert.equal(got.mrz_type, 'TD3');
    assert.deepEqual(
      got.raw_mrz.map((l) => l.length),
      [44, 44],
    );
    assert.deepEqual(wrongFields(got, want), []);
  });

  // Issue 15: the French national identity card (2 x 36, not an ICAO TD2) answered 422 NO_MRZ: its rows were
  // forced into a TD2's fields. Read as its own layout, with no expiry date in its zone.
  it('reads generated French identity cards (FRA_CNI) end to end as mrz_type TD2, layout FRA_CNI', async () => {
    let correct = 0;
    const notes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { want, got, status } = await read(1650 + i, { format: 'FRA_CNI' });
      assert.equal(status, 200, `#${i}: ${want.raw_mrz.join(' / ')}`);
      assert.ok(got);
      assert.equal(got.mrz_type, 'TD2');
      assert.equal(got.layout, 'FRA_CNI');
      assert.equal(got.expiry_date, '');
      assert.ok(got.warnings.includes('expiry_date_not_in_mrz'));
      assert.equal(got.field_confidence.expiry_date, undefined);
      const wrong = wrongFields(got, want);
      if (wrong.length === 0) correct++;
      else notes.push(`#${i} wrong ${wrong.join(',')}: ${got.raw_mrz.join(' / ')} vs ${want.raw_mrz.join(' / ')}`);
      // A wrong read must never look sure: a failing check or a warning other than the layout's own says so.
      if (wrong.length > 0) assert.ok(!got.check_digits_valid || got.warnings.length > 1, notes.at(-1));
    }
    assert.ok(correct >= 3, notes.join('\n'));
  });

  // Regression (issue 15): nationality and issuing country came back with their fillers (D<<).
  it('returns a one-letter country code without its fillers', async () => {
    const { got } = await read(1602, { format: 'TD1', issuer: 'D<<', nationality: 'D<<' });
    assert.ok(got);
    assert.equal(got.nationality, 'D');
    assert.equal(got.issuing_country, 'D');
    assert.ok(got.raw_mrz[1]!.includes('D<<'));
  });

  // Regression (issue 15): names misread (MAUS as MAAS, NOAH as NNAH, K<< as <<<) were reported with nothing to tell them apart.
  it('reads the names the issue saw misread, or says they are uncertain', async () => {
    const names: IdentityOverrides[] = [
      { surname: 'MAUS', given: 'NOAH' },
      { surname: 'MEULENDIJK', given: 'JOHN<Q' },
      { surname: 'PUBLIC', given: 'K' },
      { surname: 'K', given: 'ANNA' },
    ];
    for (const [k, o] of names.entries()) {
      const { want, got } = await read(1610 + k, { format: 'TD3', ...o });
      assert.ok(got, `${o.surname}: no MRZ`);
      const wrong = wrongFields(got, want);
      if (wrong.length > 0) assert.ok(got.warnings.length > 0, `${o.surname}: wrong ${wrong.join(',')} with no warning`);
      for (const f of ['surname', 'given_names'] as const) assert.ok(got.field_confidence[f]! >= 0 && got.field_confidence[f]! <= 1);
    }
  });

  // Issue 15: a zone of no ICAO layout (2 x 40, 4 x 30) must answer 200 or a clear 422, never crash.
  it('answers a clear 422 NO_MRZ (or a reading) for zones of no ICAO layout, never a 5xx', async () => {
    const rng = new Rng(1630);
    const base = randomIdentity(rng, { format: 'TD1' });
    const shapes = [
      ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<'],
      [...base.lines, base.lines[0]!],
    ];
    for (const lines of shapes) {
      const doc = await renderDocument({ ...base, lines }, rng, { mild: true });
      const { payload, headers } = multipart([{ name: 'image', file: doc.image }]);
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/documents/mrz', payload, headers });
      assert.ok(res.statusCode === 200 || res.statusCode === 422, `${res.statusCode} ${res.body}`);
      if (res.statusCode === 422) assert.equal(res.json().code, 'NO_MRZ');
    }
  });

  // Regression (issue 15): a nationality was "repaired" into a listed code that is not printed.
  it('returns a country code that is on no list as printed, and flags it', async () => {
    const { got } = await read(1620, { format: 'TD3', issuer: 'UTO', nationality: 'QZX' }, { mild: true, charPx: 26, angleDeg: 2 });
    assert.ok(got);
    assert.equal(got.nationality, 'QZX');
    assert.ok(got.warnings.includes('nationality_unlisted'));
  });
});

describe('generated ICAO 9303 documents: zones that were not found or read as another layout (issue 15)', () => {
  withApp();

  // Regression (issue 15): a phone screenshot of a passport turned about 17 degrees with a red box round the MRZ answered 422 NO_MRZ.
  // Tiles at full resolution find the zone (the page shrunk to 960 left its 14-pixel rows at 6); its rows, 22 px tall at a
  // 20 px pitch, read wrong in every crop grown past the row (XEC as X50) and right in the tight crop read when checks fail.
  it('reads a passport in a phone screenshot, turned 17 degrees, with a red box drawn round the MRZ', async () => {
    const { want, got, status } = await read(1603, { format: 'TD3' }, { mild: true, screenshot: 'box', angleDeg: 17, charPx: 48 });
    assert.equal(status, 200);
    assert.deepEqual(wrongFields(got, want), []);
  });

  // Regressions (issue 15) from the evaluation bench, each a general cause of 422 or of a wrong layout:
  // - a sideways MRV-A photo whose second row, next to the card's edge, the detector missed while the page was sideways
  //   (the turned page is now detected again);
  // - a TD2 card whose names and optional data fill their fields, leaving only the `<<` separator: read right and refused
  //   as implausible for having fewer than three fillers;
  // - an MRV-A whose trailing fillers the detector left out on both rows: read as a 36-character MRV-B that passed every
  //   check with its names cut short (the block is now read as far as 44 characters at the rows' own pitch).
  it('reads a sideways visa, a card with two fillers and a visa whose trailing fillers went undetected', async () => {
    await assertReadRight(1465536900, [
      [39, 'MRVA'],
      [33, 'TD2'],
    ]);
    const { want, got, format } = await readEvalDoc(2122058836, 56);
    assert.equal(format, 'MRVA');
    assert.deepEqual(wrongFields(got, want), [], got?.raw_mrz.join(' / '));
  });

  // Regression (issue 15): a low-resolution, blurred MRV-A whose boxes ended in the padding; the reads past their end, crops of
  // padding alone, decoded `544444…` and `0125` below a glyph's sureness, and the zone was read as a 36-character MRV-B. The
  // zone's own filler, followed cell by cell past the reads' end, finds both rows 44 wide (mrz-row-end.ts).
  it("reads a visa whose padding past the rows' boxes the recogniser did not decode as 44 wide", async () => {
    await assertReadRight(798846991, [[71, 'MRVA']]);
  });

  // Regressions (issue 15): TD1 cards whose names row read `ITZ<<QOUK…` for `NITZ<<QOUK…` and `RAAM<<…` for `TRAAM<<…`,
  // placed one position early; the zone's two other rows draw its left edge, which says where its first position is
  // (mrz-row-start.ts).
  it('reads cards whose names row lost its first letter in place', async () => {
    await assertReadRight(610185084, [[348, 'TD1']]);
    await assertReadRight(477989392, [[115, 'TD1']]);
  });
});

describe('OCR-B glyph evidence on generated documents (real PP-OCRv4 models)', () => {
  withApp();

  // Regressions (issue 15) from development seed 1104166753 of the evaluation bench, each read wrong by the
  // recogniser alone and right with the OCR-B templates' evidence:
  // - #20 (MRV-A), #23 (TD3), #46 (TD2): a document number's O read as 0 at near certainty; its check digit
  //   failed and the repair could not pick the O the recogniser had all but ruled out;
  // - #48 (TD1): a one-letter given name `C` read as a filler, which wiped the given names.
  it('reads O in document numbers and a single-letter name the recogniser misread', async () => {
    await assertReadRight(1104166753, [
      [20, 'MRVA'],
      [23, 'TD3'],
      [46, 'TD2'],
      [48, 'TD1'],
    ]);
  });
});

describe('MRZ rows placed by relative timing and read in their black ink only (real PP-OCRv4 models)', () => {
  withApp();

  // Regressions (issue 15) from development seed 91468020 of the evaluation bench, all phone screenshots with a
  // red box drawn round the zone, read wrong (or not at all) before:
  // - #121 (TD2), #149 (MRV-A): rows the recogniser read right but placed by absolute timing one position off
  //   (`C<KORJEINGNAAS` as `CCKORRJEINNAAS`, `NASTDIER<<` as `NASTDIERR<<`): the box widened the crop's margin;
  // - #28 (MRV-A): a doubled first letter (`VV<PYFSTR`);
  // - #135 (MRV-A): answered 422 NO_MRZ.
  it('reads zones with a red box drawn round them', async () => {
    await assertReadRight(91468020, [
      [121, 'TD2'],
      [149, 'MRVA'],
      [28, 'MRVA'],
      [135, 'MRVA'],
    ]);
  });
});

describe('zone rows kept by their padding, layout length and names read in a tight crop (real PP-OCRv4 models)', () => {
  withApp();

  // Regressions (issue 15) from development seed 507447534 of the evaluation bench, read wrong before:
  // - #84, #128 (TD3): both rows cut by the detector before their padding, read as 36-character rows whose
  //   composite check failed (reported as TD2); the rows are now read on to 44 characters at their own pitch;
  // - #35 (TD3), #109 (MRV-B): names rows whose fillers the grown crops read as K and S (`PKD<KHIERDVAASYK<MAJSS<`)
  //   and whose names no check digit covers; the tight crop of the row reads them surely and right.
  it('reads passports cut to 36 characters at their full length, and names rows whose fillers read as K', async () => {
    await assertReadRight(507447534, [
      [84, 'TD3'],
      [128, 'TD3'],
      [35, 'TD3'],
      [109, 'MRVB'],
    ]);
  });

  // Regression (issue 15), documents of the bench's run with seed 891644072 (this round's development seed):
  // - #3, #67, #121 (MRV-A): both rows' boxes ended in their padding near 35 cells; read 36 wide, every MRV-B check
  //   held and the visa came back an MRV-B, valid with no warning. Each row's extent, read past its end, is 44 cells;
  // - #8, #14 (MRV-B): zones that do end at 36 stay MRV-B, with no format warning;
  // - #94 (TD3 in a phone screenshot with a red box): the names row's box held 14 characters, stretched along its own
  //   slope it drifted off the row, read "P<" and the passport answered 422;
  // - #169 (TD1 in Liberation Mono): the OCR-B templates took the document code's D, read surely, for a 0; no check
  //   digit covers the code and the wrong read was valid with no warning.
  it('reads MRV-A visas cut at 36 characters at 44, keeps MRV-B at 36, and warns where glyphs overturned a sure read', async () => {
    const quiet = (got: Answer | undefined, want: ExpectedMrz) => got !== undefined && wrongFields(got, want).length > 0 && got.check_digits_valid && got.warnings.length === 0;
    for (const index of [3, 67, 121]) {
      const { want, got, status, format } = await readEvalDoc(891644072, index);
      assert.equal(format, 'MRVA');
      assert.equal(status, 200, `#${index}`);
      // The spec's mrz_type names a visa by its size: an MRV-A is TD3, 44 characters a row.
      assert.equal(got?.mrz_type, 'TD3', `#${index}: ${got?.raw_mrz.join(' / ')}`);
      assert.equal(got?.raw_mrz[0]?.length, 44);
      assert.ok(!quiet(got, want), `#${index} wrong with no warning: ${got?.raw_mrz.join(' / ')}`);
    }
    for (const index of [8, 14]) {
      const { want, got, format } = await readEvalDoc(891644072, index);
      assert.equal(format, 'MRVB');
      assert.deepEqual(wrongFields(got, want), [], `#${index}: ${got?.raw_mrz.join(' / ')}`);
      assert.ok(!got?.warnings.includes('format_uncertain'), `#${index}: ${got?.warnings.join(',')}`);
    }
    const shot = await readEvalDoc(891644072, 94);
    assert.equal(shot.status, 200);
    assert.equal(shot.got?.mrz_type, 'TD3');
    assert.ok(!quiet(shot.got, shot.want), shot.got?.raw_mrz.join(' / '));
    const card = await readEvalDoc(891644072, 169);
    assert.ok(card.got);
    assert.ok(!quiet(card.got, card.want), card.got.raw_mrz.join(' / '));
    if (card.got.document_code !== card.want.document_code) assert.ok(card.got.warnings.includes('document_code_uncertain'), card.got.warnings.join(','));
  });
});

describe('MRZ rows the recogniser lost stretches of, read in windows (real PP-OCRv4 models)', () => {
  withApp();

  // Regressions (issue 15) from seed 2064935195 of the evaluation bench, read wrong before: clean OCR-B rows that
  // PP-OCRv4 decoded with whole stretches blank, the same at every scale the other passes read them at
  // (mrz-row-windows.ts):
  // - #54 (MRV-A): the second row `406972<<<0GHA1612273M2906210<<<…` decoded as `020612220210`;
  // - #99 (TD1): the first row `IDSYRR987041956<<<…` decoded as `109229804195`, its 15 fillers lost;
  // - #79 (TD1, a screenshot with a red box): the first row `I<GEO48167805<9<<<…` decoded as `<650818059<`.
  it('reads rows whose first read lost stretches of text, in windows placed by a sibling row', async () => {
    await assertReadRight(2064935195, [
      [54, 'MRVA'],
      [99, 'TD1'],
      [79, 'TD1'],
    ]);
  });
});

describe("fillers told by the document's own filler glyph (real PP-OCRv4 models)", () => {
  withApp();

  // Regressions (issue 15) from seed 821135913 of the evaluation bench (drawn fresh; looked at after the
  // windows round), read wrong before: Liberation Mono zones, where the OCR-B templates do not apply, whose names
  // padding the recogniser read as letters (mrz-filler-cells.ts):
  // - #121 (TD1): `FYKTHOCKTRIERDLEIL<<<<<<<<<<<<` read `…LEILA<<<…`, the surname given an extra A;
  // - #2 (MRV-A): `…DRIHEM<<<<` read `…DRIHEM<A<N`, the given names given an A and an N.
  it("reads a names row's padding as fillers where its cells match the document's own sure fillers", async () => {
    await assertReadRight(821135913, [
      [121, 'TD1'],
      [2, 'MRVA'],
    ]);
  });
});

describe('O read as 0 in document numbers, swapped back by the check digit (real PP-OCRv4 models)', () => {
  withApp();

  // Regressions (issue 15), read wrong on main 1dee1a1: a document number's O read as 0 with no second guess,
  // the check digit failing (valid false), in OCR-B and Liberation Mono (mrz-lookalike-swap.ts):
  // - seed 821135913 #5 (MRV-A, OCR-B) `O38436797`, #63 (TD2, Liberation Mono) `QXJAA7O46`;
  // - seed 2064935195 #0 (MRV-A, OCR-B) `ITLRC0EZO`, #96 (MRV-B, OCR-B) `O082073<<`.
  // An O the check digit alone chose is said uncertain; since stop 45 the glyphs' heights tell an OCR-B O
  // from a 0 (mrz-digit-height.ts), and where they told it (#5, #96) the number is no longer in doubt.
  // Liberation Mono's digits stand no taller than its letters: #63 stays uncertain.
  it('reads the O the check digit asks for, uncertain unless the glyphs told it', async () => {
    for (const [seed, index, format, doubt] of [
      [821135913, 5, 'MRVA', false],
      [821135913, 63, 'TD2', true],
      [2064935195, 0, 'MRVA', undefined],
      [2064935195, 96, 'MRVB', false],
    ] as const) {
      const { want, got, status, format: drawn } = await readEvalDoc(seed, index);
      assert.equal(drawn, format, `${seed} #${index}`);
      assert.equal(status, 200);
      assert.deepEqual(wrongFields(got, want), [], `${seed} #${index}: ${got?.raw_mrz.join(' / ')}`);
      assert.equal(got?.check_digits_valid, true);
      if (doubt !== undefined) assert.equal(got?.warnings.includes('document_number_uncertain'), doubt, `${seed} #${index}: ${got?.warnings.join(',')}`);
    }
  });
});

describe('OCR-B glyph evidence kept to zones in OCR-B; two look-alikes in one number (real PP-OCRv4 models)', () => {
  withApp();

  // Regressions (issue 15), read wrong on main 067a20f: a name's Q read as O where the OCR-B templates
  // judged a row in another font that they happened to fit (mrz-glyphs.ts: the font is the zone's):
  // seed 327356925 #3 (TD2, FreeMono) `PYXZOUQ`, #48 (TD1, Liberation Mono) `LE<PHASTDREQ`.
  it("reads a name's Q in FreeMono and Liberation Mono", async () => {
    await assertReadRight(327356925, [
      [3, 'TD2'],
      [48, 'TD1'],
    ]);
  });

  // Regression (issue 15), read wrong on main 067a20f: a passport number's `OO` read `00`, the check
  // failing; the pair is the one fit of the check digit and the glyph evidence left both O open
  // (mrz-lookalike-swap.ts): seed 327356925 #146 (TD3, OCR-B) `8SMT3OOF5`. Since stop 45 both cells
  // measure at the letters' height (mrz-digit-height.ts), and the number is read surely.
  it('reads two look-alikes in one number as the check digit and the glyphs agree', async () => {
    const { want, got, status, format } = await readEvalDoc(327356925, 146);
    assert.equal(format, 'TD3');
    assert.equal(status, 200);
    assert.deepEqual(wrongFields(got, want), [], got?.raw_mrz.join(' / '));
    assert.equal(got?.check_digits_valid, true);
    assert.ok(!got?.warnings.includes('document_number_uncertain'), got?.warnings.join(','));
  });
});

describe("glyph evidence in the zone's own font (real PP-OCRv4 models)", () => {
  withApp();

  // Regressions (issue 15) from seed 1005539337 of the evaluation bench, read wrong on main 2f5796f,
  // where only OCR-B had templates and zones in other monospace fonts were left to the recogniser:
  // #204 (TD3, FreeMono) `SCHEIQRAEW` read `SCHEIORAEW`, #385 (TD3, DejaVu Sans Mono) `PHUQPHAEN`
  // read `PHUOPHAEN`, #161 (MRV-A, DejaVu Sans Mono) `XQQJU7` read `XQQJ07`.
  it('reads look-alikes in FreeMono and DejaVu Sans Mono with their own templates', async () => {
    await assertReadRight(1005539337, [
      [204, 'TD3'],
      [385, 'TD3'],
      [161, 'MRVA'],
    ]);
  });

  // Guards on the zone's font (mrz-glyphs.ts, zoneFont), each read right on main and broken by a
  // first version of the choice: OCR-B zones taken for another font, whose evidence then read a
  // `G` as `6` or was turned off (1005539337 #109, an MRV-A whose filler-heavy names row fitted
  // FreeMono best; 1810567290 #101, #197, TD3s whose letters Liberation Mono and DejaVu Sans Mono
  // named a few hundredths more surely), and bold Liberation Mono zones taken for FreeMono, whose
  // `Q` then read `O` and `D` read `0` (1810567290 #326 TD1, #327 TD2).
  it('keeps OCR-B zones OCR-B, and tells bold Liberation Mono from FreeMono', async () => {
    await assertReadRight(1005539337, [[109, 'MRVA']]);
    await assertReadRight(1810567290, [
      [101, 'TD3'],
      [197, 'TD3'],
      [326, 'TD1'],
      [327, 'TD2'],
    ]);
  });
});

describe("O and 0 no label against the zone's font; rival fonts; a TD1 card's document code (real PP-OCRv4 models)", () => {
  withApp();

  // Regressions (issue 15) from the evaluation bench, read wrong on main a7194f8. 2119067581 #371
  // (TD1, OCR-B) `JKW09809296OOTT` read `J<W0980929600T1`: the templates named the surely read
  // 0s as O, which counted against OCR-B and turned the zone's glyph evidence off; 200646339 #390
  // (TD1, bold Liberation Mono) `O23645508` read `023045508` the same way. A guard: 814223987
  // #398 (MRV-B, OCR-B, fitted in Liberation Mono), whose 0s a first version (which also split O
  // and 0 by the pixels alone) read O because the agreement test also forgave a date's 0. And 814223987 #72 and 592044864 #59 (TD1, OCR-B):
  // `AC` read `A0`, the 0 at 0.36 and 0.39 with C at 0.33 and 0.22, before the glyph stage's
  // first anchor and under no check digit (the document code's prior).
  it("reads O and 0 in zones whose templates disagree with the recogniser's, and a blurred TD1 code as a letter", async () => {
    await assertReadRight(2119067581, [[371, 'TD1']]);
    await assertReadRight(200646339, [[390, 'TD1']]);
    await assertReadRight(814223987, [
      [398, 'MRVB'],
      [72, 'TD1'],
    ]);
    await assertReadRight(592044864, [[59, 'TD1']]);
  });
});

describe('a zone whose page read fails its checks read tile by tile (real PP-OCRv4 models)', () => {
  withApp();

  // Regression (issue 15) from fresh seed 1346723826 of the evaluation bench, read wrong on main
  // b872d48: #274 (TD3, DejaVu Sans Mono), whose page passes made a reading with a failing check.
  // Tiles were read only when no pass made a reading; read at a tile's own resolution, the zone
  // reads right.
  it('reads the zone again tile by tile when its checks fail', async () => {
    await assertReadRight(1346723826, [[274, 'TD3']]);
  });
});

describe("K and the filler, and the padding past a sharp visa's rows (real PP-OCRv4 models)", () => {
  withApp();

  // Regressions (issue 15) from seeds of stop 41's evaluation runs, each read wrong on main 9339464:
  // - 328606385 #123 (TD3, OCR-B): the K of `MIERDKY`, read surely, matched the document's filler template
  //   as well as its sure fillers' low end and was lifted to a filler; the document's own sure K matches it better;
  // - 1275317510 #208 (MRV-A, OCR-B): the K that opens the names (`VDAZEKLOOW`) read as a filler, which ICAO
  //   prints first in the names only where an issuer leaves the primary identifier empty;
  // - 1346723826 #221 (MRV-A, OCR-B, 34-pixel print): its chevrons decoded at 0.55-0.8 with no other MRZ
  //   character near, taken for unsure; no filler template, and the visa was read 36 wide as an MRV-B.
  it('keeps a K the document shows as its own, opens the names with the letter seen, and walks a sharp padding', async () => {
    await assertReadRight(328606385, [[123, 'TD3']]);
    await assertReadRight(1275317510, [[208, 'MRVA']]);
    await assertReadRight(1346723826, [[221, 'MRVA']]);
  });
});

describe('padding printed small, read as letters, weighed against the filler template (real PP-OCRv4 models)', () => {
  withApp();

  // Regressions (issue 15) from seeds 1972375396 and 604532289 of the evaluation bench (stop 44), read
  // wrong on main 0e21b8c: padding the recogniser read as K, S, C or 4 with the filler under 1% of
  // them, so the glyph stage never weighed the filler there (mrz-glyphs.ts, reweighRow):
  // - 1972375396 #364 (MRV-B, OCR-B, 10.9-pixel print): the names row's padding read `<<SK<<KKS<K<KS`,
  //   which made given names of it;
  // - 604532289 #97 (MRV-A, OCR-B): the optional data's first two fillers read `44`.
  it("reads a names row's and an optional data field's padding as fillers", async () => {
    const names = await readEvalDoc(1972375396, 364);
    assert.equal(names.format, 'MRVB');
    assert.equal(names.status, 200);
    assert.equal(names.got!.raw_mrz[0]!.slice(22), '<'.repeat(14), names.got!.raw_mrz.join(' / '));
    assert.equal(names.got!.given_names, names.want.given_names);
    const optional = await readEvalDoc(604532289, 97);
    assert.equal(optional.format, 'MRVA');
    assert.equal(optional.status, 200);
    assert.deepEqual(optional.got!.raw_mrz, optional.want.raw_mrz);
  });
});

describe("a visa whose rows' extents disagree, read at 44 (real PP-OCRv4 models)", () => {
  withApp();

  // Regressions (issue 15) from seed 367026942 of the evaluation bench (stop 45), read wrong on main 30b3db2:
  // MRV-A visas whose one row's read past its box found fillers out to 44 cells (43.9, 44.3) while the other's
  // stopped near 36 (35.7, 36.3). Rows that disagree were read as measured, 36 wide, and each visa came back an
  // MRV-B (mrz_type TD2), its checks all holding (mrz-row-end.ts, widthFromExtents).
  it('reads an MRV-A whose one row measured 44 cells and the other 36 as an MRV-A', async () => {
    await assertReadRight(367026942, [
      [505, 'MRVA'],
      [654, 'MRVA'],
    ]);
  });
});

describe("a document number's letters told from digits by their height (real PP-OCRv4 models)", () => {
  withApp();

  // Regressions (issue 15) from seed 367026942 of the evaluation bench (stop 45), read wrong on main 30b3db2: OCR-B
  // document numbers whose letters the recogniser read as the digits they look like, with templates no surer:
  // - #895 (MRV-B, 28.6-pixel print): `GO6OGJH0Z` read `G060GJH0Z`, its two O at weights whose sum is a multiple of
  //   10, so the check digit held and the wrong number was answered valid with no warning;
  // - #189 (TD3, 29.5-pixel print): `3BT96PBKC8` read `3B196PBK08`, the check digit made to hold around them.
  // - seed 1856927377 #223 (TD3, 22.2-pixel print, low light): `8MOHREHLH9` read `8M09REHLH9`; no character of the
  //   number was read surely, so the whole number lay before the row's first glyph anchor, where the templates are
  //   not weighed: the height alone is.
  // OCR-B's digits stand taller than its capitals (mrz-digit-height.ts): the cells measure at the letters' height.
  it('reads O and C in a document number as letters, not 0', async () => {
    await assertReadRight(367026942, [
      [895, 'MRVB'],
      [189, 'TD3'],
    ]);
    await assertReadRight(1856927377, [[223, 'TD3']]);
  });
});
