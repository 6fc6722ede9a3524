import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  borrowedModel,
  fontStep,
  gridTop,
  heightLogLikelihoods,
  HEIGHT_NATS,
  heightModel,
  MIN_STEP,
  rowReferences,
  showsStep,
  templateTops,
  type HeightReference,
} from '../../src/modules/document/mrz-digit-height.js';
import { MRZ_ALPHABET, type CharClass } from '../../src/modules/document/mrz-format.js';
import { GRID_H, GRID_W, ocrbFontFile, renderTemplates, TEMPLATE_FONTS, type GlyphTemplates } from '../../src/modules/document/ocrb-templates.js';

/** A grid cell with ink `v` over rows [y0, y1) of its middle columns. */
function cellWith(strokes: { y0: number; y1: number; v: number }[]): Float32Array {
  const cell = new Float32Array(GRID_W * GRID_H);
  for (const { y0, y1, v } of strokes) for (let y = y0; y < y1; y++) for (let x = 4; x < 12; x++) cell[y * GRID_W + x] = v;
  return cell;
}

describe("a glyph's height: OCR-B's digits stand taller than its capitals", () => {
  const templates = new Map<string, GlyphTemplates>();
  before(async () => {
    assert.ok(ocrbFontFile(), 'OCR-B is not installed (apt-get install fonts-ocr-b; it is in .ci/apt-packages.txt)');
    for (const font of TEMPLATE_FONTS) {
      const t = await renderTemplates(font);
      if (t) templates.set(font.family, t);
    }
  });

  it('finds the step in the rendered templates of OCR-B and FreeMono, and none in the sans monospace faces', () => {
    const ocrb = templateTops(templates.get('OCR B')!);
    assert.ok(fontStep(ocrb) > 0.06, `OCR-B step ${fontStep(ocrb)}`);
    // Every digit above every capital, the pairs a recogniser confuses included.
    for (const [letter, digit] of ['O0', 'I1', 'Z2', 'S5', 'G6', 'B8', 'D0', 'U0']) assert.ok(ocrb[MRZ_ALPHABET.indexOf(digit!)]! - ocrb[MRZ_ALPHABET.indexOf(letter!)]! > 0.04, `${letter}/${digit}`);
    for (const family of ['FreeMono', 'DejaVu Sans Mono', 'Liberation Mono']) {
      const t = templates.get(family);
      if (!t) continue;
      const step = fontStep(templateTops(t));
      if (family === 'FreeMono') assert.ok(step > 0.06, `${family} step ${step}`);
      else assert.ok(step < MIN_STEP, `${family} step ${step}`);
    }
  });

  // Halfway to the cell's most ink, a sharp FreeMono O's thin top arc was never reached and its top was found at its
  // bottom arc; halfway to the topmost stroke's own peak it is found where it is.
  it("measures a cell's top at its topmost stroke, a thin one included", () => {
    // Cap line at grid row 3 (GRID_MARGIN): a stroke whose upper edge lies on it measures 0.
    assert.ok(Math.abs(gridTop(cellWith([{ y0: 3, y1: 21, v: 1 }]))) < 0.01);
    assert.ok(
      Math.abs(
        gridTop(
          cellWith([
            { y0: 3, y1: 4, v: 0.4 },
            { y0: 6, y1: 21, v: 1 },
          ]),
        ),
      ) < 0.01,
    );
    // One grid row above the cap line: 1/18 of the cap height.
    assert.ok(Math.abs(gridTop(cellWith([{ y0: 2, y1: 21, v: 1 }])) - 1 / 18) < 0.01);
    // No contrast, or ink from the first row (cut off above): no measure.
    assert.ok(Number.isNaN(gridTop(new Float32Array(GRID_W * GRID_H))));
    assert.ok(Number.isNaN(gridTop(cellWith([{ y0: 0, y1: 21, v: 1 }]))));
  });

  it("weighs a cell's candidates by how far its top lies from each one's, at most HEIGHT_NATS against", () => {
    const expected = templateTops(templates.get('OCR B')!);
    const model = { level: 0, noise: 0.015 };
    const at = (c: string) => expected[MRZ_ALPHABET.indexOf(c)]!;
    const letterHigh = heightLogLikelihoods(at('O'), model, expected, ['0', 'O', '<']);
    assert.equal(letterHigh.get('O'), 0);
    assert.equal(letterHigh.get('0'), -HEIGHT_NATS);
    // The filler is left as the likeliest glyph: the height says nothing of a chevron against a letter.
    assert.equal(letterHigh.get('<'), 0);
    const digitHigh = heightLogLikelihoods(at('0') + 0.02, { level: 0.02, noise: 0.015 }, expected, ['0', 'O']);
    assert.equal(digitHigh.get('0'), 0);
    assert.equal(digitHigh.get('O'), -HEIGHT_NATS);
  });

  it('takes references only where the class fixes a letter or a digit and admits the character read', () => {
    const expected = templateTops(templates.get('OCR B')!);
    const classes: CharClass[] = ['X', 'A', 'N', 'S', 'A'];
    const reads = [
      { c: '0', p: 0.99 }, // a document number: letters and digits both stand there
      { c: 'D', p: 0.95 },
      { c: '7', p: 0.6 },
      { c: 'F', p: 0.97 },
      { c: '0', p: 0.9 }, // a nationality read as a digit: no letter to measure
    ];
    const tops = reads.map((r) => expected[MRZ_ALPHABET.indexOf(r.c)]!);
    const refs = rowReferences(tops, expected, classes, reads);
    assert.deepEqual(
      refs.map((r) => r.kind),
      ['letter', 'digit', 'letter'],
    );
    for (const r of refs) assert.ok(Math.abs(r.residual) < 1e-9);
    assert.equal(heightModel(refs.slice(0, 2)), undefined);
    assert.deepEqual(heightModel(refs), { level: 0, noise: 0.015 });
  });

  // A TD1 card's first row read unsurely throughout has no references of its own; the other rows' level is
  // borrowed, less surely, since rows of one zone sat up to 0.05 of the cap height apart.
  it("lends a row without references the other rows' median level, with its noise widened", () => {
    assert.equal(borrowedModel([undefined, undefined]), undefined);
    const lent = borrowedModel([undefined, { level: 0.018, noise: 0.015 }, { level: 0.022, noise: 0.02 }])!;
    assert.ok(Math.abs(lent.level - 0.02) < 1e-9);
    assert.equal(lent.noise, 0.05);
    // Rows further apart than that widen it further.
    assert.ok(
      Math.abs(
        borrowedModel([
          { level: -0.04, noise: 0.015 },
          { level: 0.04, noise: 0.015 },
        ])!.noise - 0.08,
      ) < 1e-9,
    );
  });

  it("tells a print that keeps the font's step from one whose digits stand no taller than its letters", () => {
    const refs = (digitResidual: number): HeightReference[] => [
      { kind: 'letter', residual: 0.01 },
      { kind: 'letter', residual: -0.01 },
      { kind: 'digit', residual: digitResidual },
      { kind: 'digit', residual: digitResidual + 0.01 },
    ];
    assert.equal(showsStep(refs(0), 0.08), true);
    assert.equal(showsStep(refs(-0.08), 0.08), false);
    assert.equal(showsStep(refs(0).slice(1), 0.08), undefined);
  });
});
