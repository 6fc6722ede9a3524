import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ExpectedMrz } from '../fixtures/mrz-docs/identity.js';
import { generatedDocument } from '../fixtures/mrz-docs/render.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { mrzAnswer } from '../helpers/mrz-answer.js';

const FIELDS = ['mrz_type', 'document_code', 'document_number', 'surname', 'given_names', 'nationality', 'date_of_birth', 'sex', 'expiry_date', 'issuing_country'] as const;

type Answer = ExpectedMrz & { warnings?: string[] };

/** Document `index` of `bench/eval-documents-generated.ts --seed S`, drawn as the bench draws it. */
async function benchDoc(seed: number, index: number): Promise<{ want: ExpectedMrz; image: Buffer; format: string }> {
  const { id, doc } = await generatedDocument(seed, index);
  return { want: id.expected, image: doc.image, format: id.format };
}

describe("a two-row zone's width (issue 15, real PP-OCRv4 models)", () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    await t.close();
  });

  const read = (image: Buffer): Promise<Answer> => mrzAnswer(t, image);

  // Main answered these 44-character visas (seed 875602458) as 36-character MRV-B visas, every check holding and
  // no warning: one cut by a tile's edge, one whose second row's padding faded. Read right, or said unsure.
  for (const index of [8, 85]) {
    it(`never answers MRV-A visa #${index} as an MRV-B without a warning`, async () => {
      const doc = await benchDoc(875602458, index);
      assert.equal(doc.format, 'MRVA');
      const got = await read(doc.image);
      const right = FIELDS.every((f) => got[f] === doc.want[f]);
      assert.ok(right || got.warnings?.includes('format_uncertain'), `${got.raw_mrz.join(' / ')} warnings ${got.warnings?.join(',')}`);
    });
  }

  // Main read this TD2 card's rows (seed 875602458, #145) on to 44 characters when its composite digit was misread:
  // what lay past the card's edge passed a passport's last two checks, and a card became a valid TD3.
  it('does not read a TD2 card whose rows were seen to end at 36 on to a valid passport', async () => {
    const doc = await benchDoc(875602458, 145);
    assert.equal(doc.format, 'TD2');
    const got = await read(doc.image);
    assert.ok(got.mrz_type === 'TD2' || !got.check_digits_valid, `${got.raw_mrz.join(' / ')} valid ${got.check_digits_valid}`);
  });
});
