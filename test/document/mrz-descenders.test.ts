import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { descenderShares, type CellRow } from '../../src/modules/document/mrz-descenders.js';

/**
 * Rows drawn by hand as ink (no font): cells PITCH wide, capitals from CAP_TOP to BASE. `H` is two
 * stems and a bar, `O` a ring, `Q` a ring with a stroke below the baseline (its tail in most
 * fonts), `q` a ring with the stroke inside the bowl (OCR-B's Q), `<` a short chevron at mid-height.
 */
const PITCH = 20;
const HEIGHT = 48;
const CAP_TOP = 10;
const BASE = 38;
const INK = 200;

function drawRow(text: string, opts: { background?: number; drop?: number[] } = {}): CellRow {
  const width = PITCH * text.length;
  const data = new Float32Array(width * HEIGHT).fill(opts.background ?? 10);
  const put = (x: number, y: number) => {
    if (x >= 0 && x < width && y >= 0 && y < HEIGHT) data[y * width + x] = INK;
  };
  [...text].forEach((c, k) => {
    // A bent baseline (a row seen in perspective): each cell may sit a few pixels lower.
    const drop = opts.drop?.[k] ?? 0;
    const x0 = k * PITCH + 4;
    const x1 = k * PITCH + 15;
    const top = CAP_TOP + drop;
    const base = BASE + drop;
    const stroke = (xa: number, xb: number, ya: number, yb: number) => {
      for (let y = ya; y <= yb; y++) for (let x = xa; x <= xb; x++) put(x, y);
    };
    if (c === 'H') {
      stroke(x0, x0 + 2, top, base);
      stroke(x1 - 2, x1, top, base);
      stroke(x0, x1, (top + base) >> 1, ((top + base) >> 1) + 2);
    } else if (c === 'O' || c === 'Q' || c === 'q') {
      stroke(x0, x0 + 2, top, base);
      stroke(x1 - 2, x1, top, base);
      stroke(x0, x1, top, top + 2);
      stroke(x0, x1, base - 2, base);
      if (c === 'Q') stroke(((x0 + x1) >> 1) - 1, ((x0 + x1) >> 1) + 1, base, base + 7);
      if (c === 'q') stroke(((x0 + x1) >> 1) + 1, ((x0 + x1) >> 1) + 3, base - 8, base);
    } else if (c === '<') {
      stroke(x0, x1, (top + base) >> 1, ((top + base) >> 1) + 1);
    }
  });
  return { ink: { data, width, height: HEIGHT }, centre: (k) => k * PITCH + PITCH / 2, pitch: PITCH };
}

/** Every position but the fillers and the ones asked about is a sure reference character. */
const shares = (text: string, opts?: Parameters<typeof drawRow>[1]) =>
  descenderShares(
    drawRow(text, opts),
    text.length,
    [...text].flatMap((c, k) => (c === 'H' ? [k] : [])),
  ).share;

describe('a Q told from an O by ink below the baseline (mrz-descenders)', () => {
  it("gives a tail below the baseline a high share and an O's bowl none", () => {
    const s = shares('HHOHHQHH<<');
    assert.ok(s[5]! > 0.4, `Q ${s[5]}`);
    assert.ok(Math.abs(s[2]!) < 0.05, `O ${s[2]}`);
    for (const k of [0, 1, 3, 4, 6, 7]) assert.ok(Math.abs(s[k]!) < 0.05, `H at ${k}: ${s[k]}`);
    assert.ok(s[8]! < 0.05, `filler ${s[8]}`);
  });

  it("gives OCR-B's Q, whose tail stays inside the bowl, no share", () => {
    const s = shares('HHqHHOHH');
    assert.ok(Math.abs(s[2]!) < 0.05, `q ${s[2]}`);
  });

  it('takes the baseline from the neighbours, so a row that drops along its length keeps its own', () => {
    const drop = Array.from({ length: 12 }, (_, k) => Math.floor(k / 2));
    const s = shares('HHHHOHHHHQHH', { drop });
    assert.ok(Math.abs(s[4]!) < 0.05, `O ${s[4]}`);
    assert.ok(s[9]! > 0.4, `Q ${s[9]}`);
  });

  it('measures nothing in a crop cut at the baseline, or in light print on a dark ground', () => {
    const cut = drawRow('HHOHHQHH');
    const short: CellRow = { ...cut, ink: { ...cut.ink, height: BASE + 1, data: cut.ink.data.slice(0, cut.ink.width * (BASE + 1)) } };
    assert.ok(descenderShares(short, 8, [0, 1, 3, 4, 6, 7]).share.every((v) => v === undefined));
    const inverted = drawRow('HHOHHQHH');
    for (let i = 0; i < inverted.ink.data.length; i++) inverted.ink.data[i] = 255 - inverted.ink.data[i]!;
    assert.ok(descenderShares(inverted, 8, [0, 1, 3, 4, 6, 7]).share.every((v) => v === undefined));
  });
});
