import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BLANK, type CtcMatrix } from '../../src/modules/document/ctc-decode.js';
import { isExpired, documentScannedData } from '../../src/modules/document/document-events.js';
import { MRZ_ALPHABET } from '../../src/modules/document/mrz-format.js';
import { parseMrz } from '../../src/modules/document/mrz-parser.js';
import { plausible } from '../../src/modules/document/mrz-reading-score.js';
import { alignLine, distsToText, mrzClassIndices, readMrzLine } from '../../src/modules/document/mrz-slots.js';
import { reduceLastAxis } from '../../src/runtime/last-axis-reduction.js';

// A toy dictionary: blank, the MRZ alphabet, space (the real one has 6623 characters).
const DICT = ['', ...MRZ_ALPHABET, ' '];
const IDX = mrzClassIndices(DICT);

/**
 * A CTC matrix for `text` as a recogniser emits it: one character every `pitch`
 * steps starting at step 1.5, each held for `hold` steps, blanks between; when
 * `mergeFillers`, runs of '<' are held without blanks (greedy CTC merges them).
 */
function matrix(text: string, pitch: number, opts: { hold?: number; mergeFillers?: boolean; drop?: number[]; lead?: number } = {}): CtcMatrix {
  // `lead`: extra steps of margin before the first character (a crop cut wider on the left).
  const lead = opts.lead ?? 0;
  const steps = Math.round(1.5 + lead + pitch * (text.length - 1) + 5);
  const classes = DICT.length;
  const probs = new Float32Array(steps * classes);
  for (let t = 0; t < steps; t++) probs[t * classes] = 1; // blank everywhere
  [...text].forEach((c, k) => {
    if (opts.drop?.includes(k)) return;
    const start = Math.round(1.5 + lead + k * pitch);
    const next = k + 1 < text.length && opts.mergeFillers && c === '<' && text[k + 1] === '<' ? Math.round(1.5 + lead + (k + 1) * pitch) : start + (opts.hold ?? 1);
    for (let t = start; t < next && t < steps; t++) {
      probs[t * classes] = 0.02;
      probs[t * classes + DICT.indexOf(c)] = 0.98;
    }
  });
  // Reduced as the inference worker reduces a recogniser's output.
  const kept = [BLANK, ...IDX];
  const r = reduceLastAxis(probs, [1, steps, classes], kept);
  return { steps, best: r.argmax, bestProb: r.max, kept, keptProbs: r.kept };
}

const LINE = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<';

describe('MRZ alignment to the layout length', () => {
  it('reads a clean line as it is', () => {
    const m = matrix(LINE, 4);
    const read = readMrzLine(m, IDX);
    assert.equal(read.text, LINE);
    assert.equal(distsToText(alignLine(m, IDX, read, 44).map((s) => s.dist)), LINE);
  });

  it('restores fillers that greedy CTC merged into one', () => {
    const m = matrix(LINE, 4, { mergeFillers: true });
    const read = readMrzLine(m, IDX);
    assert.ok(read.text.length < 30, `merged read: ${read.text}`);
    assert.equal(distsToText(alignLine(m, IDX, read, 44).map((s) => s.dist)), LINE);
  });

  it('keeps the other characters in place when one is missing at the start', () => {
    const m = matrix(LINE, 4, { drop: [0] });
    const read = readMrzLine(m, IDX);
    assert.equal(read.text, LINE.slice(1));
    const slots = alignLine(m, IDX, read, 44);
    assert.equal(distsToText(slots.map((s) => s.dist)).slice(1), LINE.slice(1));
    assert.ok(slots[0]!.weight < 1, 'the gap is marked as read from between characters');
  });

  it('keeps a row in place when its crop has a wider margin on the left and a filler was lost', () => {
    // A frame drawn round the zone widens the crop's left margin by about a pitch and a half;
    // placing characters by absolute timing alone shifted the row one position (its first
    // letter doubled) and dropped a later letter to catch up.
    const row = 'C<KORJEINGNAAS<<JAE<YEIN<<<<<<<<<<<<';
    const m = matrix(row, 2.1, { lead: 3.2, drop: [30] });
    const read = readMrzLine(m, IDX);
    assert.equal(read.text.length, 35);
    assert.equal(distsToText(alignLine(m, IDX, read, 36).map((s) => s.dist)), row);
  });
});

describe('greedy decoding over the MRZ alphabet: how clearly a character won', () => {
  // One timestep each: a chevron whose probability the recogniser's dictionary shared with a look-alike no
  // MRZ holds (here the space), against a K; and the blank winning a tie, as before.
  function steps(rows: [string, number][][]): CtcMatrix {
    const classes = DICT.length;
    const probs = new Float32Array(rows.length * classes);
    rows.forEach((row, t) => row.forEach(([c, p]) => (probs[t * classes + DICT.indexOf(c)] = p)));
    const kept = [BLANK, ...IDX];
    const r = reduceLastAxis(probs, [1, rows.length, classes], kept);
    return { steps: rows.length, best: r.argmax, bestProb: r.max, kept, keptProbs: r.kept };
  }

  it("keeps the runner-up MRZ character's probability, the blank left out", () => {
    const read = readMrzLine(
      steps([
        [
          ['<', 0.6],
          [' ', 0.3],
          ['K', 0.05],
          ['', 0.05],
        ],
        [
          ['', 0.45],
          ['A', 0.45],
          ['4', 0.1],
        ],
      ]),
      IDX,
    );
    assert.equal(read.text, '<');
    assert.ok(Math.abs(read.chars[0]!.prob - 0.6) < 1e-6);
    assert.ok(Math.abs(read.chars[0]!.rival! - 0.05) < 1e-6);
  });
});

describe("MRZ alignment held to a sibling row's start (issue 15)", () => {
  // A TD1 names row cut a cell narrower on the left than its siblings, its first letter at the crop's
  // very edge and lost: alone, its second letter is placed first and a filler added at the end (`EIRD<<…`).
  const row = 'CEIRD<<<<<<<<<<<<<<<<<<<<<<<<<';
  const m = matrix(row, 3, { lead: -3, drop: [0], mergeFillers: true });

  it('places a row that lost its first character one position early on its own', () => {
    const read = readMrzLine(m, IDX);
    assert.equal(read.text[0], 'E');
    assert.equal(distsToText(alignLine(m, IDX, read, 30).map((s) => s.dist)).slice(0, 4), 'EIRD');
  });

  it('leaves its first position open where a sibling row says where it is', () => {
    const read = { ...readMrzLine(m, IDX), startAt: 1.5 - 3 };
    const slots = alignLine(m, IDX, read, 30);
    assert.equal(distsToText(slots.map((s) => s.dist)).slice(1), row.slice(1));
    assert.ok(slots[0]!.weight < 1, 'the first position is read from before the first character');
  });
});

describe('MRZ plausibility and the document_scanned payload', () => {
  it('rejects text forced into a layout: no ICAO document letter, impossible dates, no fillers', () => {
    const real = parseMrz(['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'])!;
    assert.equal(plausible(real), true);
    // Names and optional data that fill their fields leave only the names separator: still an MRZ.
    const full = parseMrz(['IDCUWTRIEMLESTGRESTCAEQ<<YAACKQEPHOU', 'QB79368235CUW6210250M3712029Q6G78C52'])!;
    assert.equal(plausible(full), true);
    const garbage = parseMrz(['USGOVMMNSA1IPL2SSIFOM176RV0209', '5443116F3411115SSAMPLEESAMMPL6', 'IAUSAOOOOOOOOBBLINTOLLZSOOTO<<'])!;
    assert.equal(plausible(garbage), false);
  });

  it('flags expiry against the scan day and leaves personal fields out', () => {
    const today = new Date('2026-06-01T12:00:00Z');
    assert.equal(isExpired('260531', today), true);
    assert.equal(isExpired('260601', today), false);
    assert.equal(isExpired('991301', today), null);
    const mrz = parseMrz(['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'])!.result;
    const data = documentScannedData({ detected: true, has_face: true, mrz, ocrLines: 30 }, today);
    assert.deepEqual(data, {
      detected: true,
      has_face: true,
      has_mrz: true,
      mrz_type: 'TD3',
      document_kind: 'P',
      issuing_country: 'UTO',
      check_digits_valid: true,
      expired: true,
      ocr_lines: 30,
    });
  });
});
