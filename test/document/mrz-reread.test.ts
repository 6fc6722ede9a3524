import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BLANK, type CtcMatrix } from '../../src/modules/document/ctc-decode.js';
import type { Quad } from '../../src/modules/document/geometry.js';
import { FORMATS, MRZ_ALPHABET } from '../../src/modules/document/mrz-format.js';
import { parseMrz } from '../../src/modules/document/mrz-parser.js';
import { alignSpan, doubtfulPositions, innerOf, rereadCuts, spanQuad, spansFor } from '../../src/modules/document/mrz-reread.js';
import { distsFromLine, type SlotDist } from '../../src/modules/document/mrz-repair.js';
import { alignLineTimed, distsToText, mrzClassIndices, readMrzLine } from '../../src/modules/document/mrz-slots.js';
import { WIDTH_STEP } from '../../src/modules/document/text-recognizer.js';
import { reduceLastAxis } from '../../src/runtime/last-axis-reduction.js';

const DICT = ['', ...MRZ_ALPHABET, ' '];
const IDX = mrzClassIndices(DICT);
const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

/** A recogniser output of `steps` timesteps holding each character at the step given (blanks elsewhere). */
function matrixAt(chars: [string, number][], steps: number): CtcMatrix {
  const classes = DICT.length;
  const probs = new Float32Array(steps * classes);
  for (let t = 0; t < steps; t++) probs[t * classes] = 1;
  for (const [c, at] of chars) {
    const t = Math.round(at);
    if (t < 0 || t >= steps) continue;
    probs[t * classes] = 0.02;
    probs[t * classes + DICT.indexOf(c)] = 0.98;
  }
  const kept = [BLANK, ...IDX];
  const r = reduceLastAxis(probs, [1, steps, classes], kept);
  return { steps, best: r.argmax, bestProb: r.max, kept, keptProbs: r.kept };
}

/** Clear slots, with position `pos` of `line` read as `read` 0.5 against `alt` 0.45. */
function withDoubt(lines: string[], line: number, pos: number, read: string, alt: string): SlotDist[][] {
  const slots = lines.map((l) => distsFromLine(l, 0.001));
  const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
  d[MRZ_ALPHABET.indexOf(read)] = 0.5;
  d[MRZ_ALPHABET.indexOf(alt)] = 0.45;
  slots[line]![pos] = d;
  return slots;
}

const everyOwned = (length: number) => ({ owner: Array.from({ length }, (_, k) => k) });
const checksOf = (slots: SlotDist[][]) => parseMrz(slots.map(distsToText))!.checks;

describe('MRZ second look: which characters are in doubt', () => {
  it('finds none on a clear row, and the uncertain character where there is one', () => {
    const clear = TD3.map((l) => distsFromLine(l, 0.001));
    assert.deepEqual(doubtfulPositions(FORMATS.TD3, clear, 0, everyOwned(44), 44, checksOf(clear)), []);
    const doubt = withDoubt(TD3, 0, 20, 'M', 'N'); // MARIA's M
    assert.deepEqual(doubtfulPositions(FORMATS.TD3, doubt, 0, everyOwned(44), 44, checksOf(doubt)), [20]);
  });

  it('takes a position the first read filled from a gap, unless the gap is a merged run of fillers', () => {
    const clear = TD3.map((l) => distsFromLine(l, 0.001));
    const owner: (number | undefined)[] = everyOwned(44).owner;
    owner[8] = undefined; // a letter of ERIKSSON no character was decoded for
    owner[30] = undefined; // a filler of the trailing run
    assert.deepEqual(doubtfulPositions(FORMATS.TD3, clear, 0, { owner }, 42, checksOf(clear)), [8]);
  });

  it('re-reads the suspects of a failing check and its digit; with no suspect, what no holding check covers', () => {
    // Expiry date 120415 read with its 5 unsure as 6 (check digit 9 then fails).
    const lines = [TD3[0]!, TD3[1]!.slice(0, 26) + '6' + TD3[1]!.slice(27)];
    const slots = lines.map((l) => distsFromLine(l, 0.001));
    const unsure = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
    unsure[MRZ_ALPHABET.indexOf('6')] = 0.9;
    unsure[MRZ_ALPHABET.indexOf('5')] = 0.08;
    slots[1]![26] = unsure;
    const checks = checksOf(slots);
    assert.ok(checks.some((c) => c.name === 'exp' && !c.valid));
    assert.deepEqual(doubtfulPositions(FORMATS.TD3, slots, 1, everyOwned(44), 44, checks), [26, 27, 43]);
    // The same misread, read surely: the expiry date and its digit (the composite fails with it;
    // the document number, birth date and personal number checks hold and vouch for theirs).
    const sure = lines.map((l) => distsFromLine(l, 0.001));
    assert.deepEqual(doubtfulPositions(FORMATS.TD3, sure, 1, everyOwned(44), 44, checksOf(sure)), [21, 22, 23, 24, 25, 26, 27, 43]);
    assert.deepEqual(spansFor([21, 22, 23, 24, 25, 26, 27, 43], 44), [
      { start: 19, end: 29 },
      { start: 41, end: 43 },
    ]);
  });

  it('reads a row whole when it decoded to more characters than the layout holds', () => {
    const clear = TD3.map((l) => distsFromLine(l, 0.001));
    assert.equal(doubtfulPositions(FORMATS.TD3, clear, 0, everyOwned(44), 46, checksOf(clear)), undefined);
  });
});

describe('MRZ second look: spans', () => {
  it('grows each doubtful position by its context and merges spans that touch', () => {
    assert.deepEqual(spansFor([20], 44), [{ start: 18, end: 22 }]);
    assert.deepEqual(spansFor([3, 7], 44), [{ start: 1, end: 9 }]);
    assert.deepEqual(spansFor([3, 9], 44), [
      { start: 1, end: 5 },
      { start: 7, end: 11 },
    ]);
    assert.deepEqual(spansFor([0, 43], 44), [
      { start: 0, end: 2 },
      { start: 41, end: 43 },
    ]);
  });

  it('gives up on spans for a row mostly in doubt (read whole)', () => {
    assert.equal(spansFor([2, 8, 14, 20, 26, 32, 38], 44), undefined);
  });

  it('counts a span only inside its context, but to the row ends', () => {
    assert.deepEqual(innerOf({ start: 18, end: 22 }, 44), { start: 20, end: 20 });
    assert.deepEqual(innerOf({ start: 0, end: 2 }, 44), { start: 0, end: 0 });
    assert.deepEqual(innerOf({ start: 41, end: 43 }, 44), { start: 43, end: 43 });
  });
});

describe('MRZ second look: cutting and placing a span', () => {
  // A level row 880 pixels long, read from a 1,200-pixel crop: position k at timestep 2 + 3.4k.
  const quad: Quad = [
    { x: 100, y: 50 },
    { x: 980, y: 50 },
    { x: 980, y: 80 },
    { x: 100, y: 80 },
  ];
  const timing = { first: 2, pitch: 3.4 };
  const cropWidth = 1200;
  const u = (t: number) => ((t + 0.5) * WIDTH_STEP) / cropWidth;

  it('cuts half a pitch beyond the span, and at the crop ends for a span at the row ends', () => {
    const mid = spanQuad(quad, timing, cropWidth, 44, { start: 18, end: 22 });
    assert.ok(Math.abs(mid.u0 - u(2 + 17.5 * 3.4)) < 1e-9 && Math.abs(mid.u1 - u(2 + 22.5 * 3.4)) < 1e-9);
    assert.ok(Math.abs(mid.quad[0].x - (100 + 880 * mid.u0)) < 1e-9 && mid.quad[0].y === 50);
    assert.ok(Math.abs(mid.quad[2].x - (100 + 880 * mid.u1)) < 1e-9 && mid.quad[2].y === 80);
    const ends = [spanQuad(quad, timing, cropWidth, 44, { start: 0, end: 2 }), spanQuad(quad, timing, cropWidth, 44, { start: 41, end: 43 })];
    assert.equal(ends[0]!.u0, 0);
    assert.equal(ends[1]!.u1, 1);
  });

  it('places the span read on the row positions its cut held, whatever the crop width', () => {
    const row = TD3[0]!;
    const span = { start: 18, end: 22 };
    const cut = spanQuad(quad, timing, cropWidth, 44, span);
    // Read again at another stretch: the span's crop is 160 pixels, its characters where the cut put them.
    const width = 160;
    const here = (k: number) => ((u(timing.first + k * timing.pitch) - cut.u0) / (cut.u1 - cut.u0)) * (width / WIDTH_STEP) - 0.5;
    // The neighbour before the span shows at the crop's left edge: it must not shift the others.
    const chars: [string, number][] = [['O', 0], ...[18, 19, 20, 21, 22].map((k) => [row[k]!, here(k)] as [string, number])];
    const m = matrixAt(chars, width / WIDTH_STEP);
    const out = alignSpan(m, IDX, readMrzLine(m, IDX), width, { ...timing, cropWidth, length: 44 }, { span, u0: cut.u0, u1: cut.u1, inner: innerOf(span, 44) });
    assert.equal(out.length, 44);
    assert.equal(distsToText([out[20]!.dist]), row[20]);
    assert.equal(out[20]!.weight, 1);
    // Context and the rest of the row are left to the other reads.
    for (const k of [0, 17, 18, 19, 21, 22, 43]) assert.equal(out[k]!.weight, 0, `position ${k}`);
  });

  it('does not give a position its neighbour when the span read decoded nothing there', () => {
    const row = TD3[0]!;
    const span = { start: 18, end: 22 };
    const cut = spanQuad(quad, timing, cropWidth, 44, span);
    const width = 160;
    const here = (k: number) => ((u(timing.first + k * timing.pitch) - cut.u0) / (cut.u1 - cut.u0)) * (width / WIDTH_STEP) - 0.5;
    // MARIA's M (position 20) read as nothing; its neighbours A and A one pitch away on each side.
    const chars = [18, 19, 21, 22].map((k) => [row[k]!, here(k)] as [string, number]);
    const m = matrixAt(chars, width / WIDTH_STEP);
    const out = alignSpan(m, IDX, readMrzLine(m, IDX), width, { ...timing, cropWidth, length: 44 }, { span, u0: cut.u0, u1: cut.u1, inner: innerOf(span, 44) });
    assert.ok(out[20]!.weight < 1, `position 20 was given a decoded character (weight ${out[20]!.weight})`);
  });

  it('reads a position the span read decoded nothing at from its place, trusted less', () => {
    const span = { start: 18, end: 22 };
    const cut = spanQuad(quad, timing, cropWidth, 44, span);
    const m = matrixAt([], 20);
    const out = alignSpan(m, IDX, readMrzLine(m, IDX), 160, { ...timing, cropWidth, length: 44 }, { span, u0: cut.u0, u1: cut.u1, inner: innerOf(span, 44) });
    assert.ok(out[20]!.weight > 0 && out[20]!.weight < 1);
  });
});

describe('MRZ second look: what a row read again is cut into', () => {
  const quad: Quad = [
    { x: 0, y: 0 },
    { x: 880, y: 0 },
    { x: 880, y: 30 },
    { x: 0, y: 30 },
  ];
  const row = (text: string, steps: number) => {
    const m = matrixAt(
      [...text].map((c, k) => [c, 2 + 3.4 * k]),
      steps,
    );
    return { quad, cropWidth: steps * WIDTH_STEP, read: readMrzLine(m, IDX), m };
  };

  it('cuts spans round an uncertain names character, the whole row without a parse, nothing for a clear row', () => {
    const r = row(TD3[0]!, 154);
    const timed = alignLineTimed(r.m, IDX, r.read, 44);
    const doubt = withDoubt(TD3, 0, 20, 'M', 'N');
    const cuts = rereadCuts(FORMATS.TD3, doubt, 0, r, timed, 44, checksOf(doubt));
    assert.equal(cuts.length, 1);
    assert.deepEqual(cuts[0]!.span?.span, { start: 18, end: 22 });
    assert.ok(cuts[0]!.quad[1].x - cuts[0]!.quad[0].x < 880 / 4);
    assert.deepEqual(
      rereadCuts(FORMATS.TD3, doubt, 0, r, timed, 44, undefined).map((c) => c.span),
      [undefined],
    );
    const clear = TD3.map((l) => distsFromLine(l, 0.001));
    assert.deepEqual(rereadCuts(FORMATS.TD3, clear, 0, r, timed, 44, checksOf(clear)), []);
  });
});
