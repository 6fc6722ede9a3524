import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { VigilContext } from '../../src/core/context.js';
import { decodeImage } from '../../src/core/image-decode.js';
import { findOutline, rectify } from '../../src/modules/document/document-outline.js';
import { mrzFastDetSide } from '../../src/modules/document/document-service.js';
import { quadCenter } from '../../src/modules/document/geometry.js';
import { MrzReader } from '../../src/modules/document/mrz-reader.js';
import { insideBbox, OcrEngine, workingCopy } from '../../src/modules/document/ocr-engine.js';
import { loadOpenCv } from '../../src/modules/document/opencv.js';
import { loadDictionary, OCR_MODELS } from '../../src/modules/document/plugin.js';
import { randomIdentity, Rng } from '../fixtures/mrz-docs/identity.js';
import { renderDocument } from '../fixtures/mrz-docs/render.js';
import { testApp, type TestApp } from '../helpers/app.js';

/**
 * /mrz's first pass detects a flattened document outline at a smaller side (mrzFastDetSide)
 * than a page that may hold the document anywhere: the outline is the document, its MRZ
 * characters a known share of it. The zone the reader would take there must be the one the
 * larger side finds, row for row, on generated documents photographed and scanned.
 */
describe('the first /mrz pass on a flattened outline (real PP-OCRv4 detector)', () => {
  let t: TestApp;
  let engine: OcrEngine;
  before(async () => {
    t = await testApp();
    const vigil = (t.app as unknown as { vigil: VigilContext }).vigil;
    const dictionary = await loadDictionary(vigil.models, vigil.config.document.models_dir);
    engine = new OcrEngine(await loadOpenCv(), { det: vigil.models.get(OCR_MODELS.det).runner, rec: vigil.models.get(OCR_MODELS.rec).runner }, dictionary);
  });
  after(() => t.close());

  it('detects smaller on an outline than on a page without one', () => {
    assert.ok(mrzFastDetSide(true) < mrzFastDetSide(false));
  });

  it('finds the zone rows the larger side finds, on every flattened generated document', async () => {
    const cv = await loadOpenCv();
    let flattened = 0;
    for (let i = 0; i < 14 && flattened < 8; i++) {
      const rng = new Rng(1500 + i);
      const id = randomIdentity(rng);
      const doc = await renderDocument(id, rng, { mild: true });
      const { image } = await workingCopy(await decodeImage(doc.image, { field: 'image', maxPixels: 40e6 }));
      const outline = await findOutline(cv, image);
      if (!outline) continue;
      flattened++;
      const page = rectify(cv, image, outline.quad).image;
      const reader = new MrzReader(engine);
      const small = reader.likelyZone(await engine.upright(page, mrzFastDetSide(true)));
      const large = reader.likelyZone(await engine.upright(page, mrzFastDetSide(false)));
      assert.equal(small.length, id.lines.length, `document ${i}: ${small.length} rows at ${mrzFastDetSide(true)}, ${id.lines.length} printed`);
      for (const row of small)
        assert.ok(
          large.some((q) => insideBbox(q, quadCenter(row))),
          `document ${i}: a row found only at the smaller side`,
        );
    }
    assert.ok(flattened >= 6, `only ${flattened} documents had an outline`);
  });
});
