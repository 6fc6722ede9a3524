import { classAllows, MRZ_ALPHABET, type CheckDef, type FormatDef, type Span } from './mrz-format.js';
import { resolveChecks } from './mrz-parser.js';
import type { SlotDist } from './mrz-repair.js';

/**
 * Characters drawn alike in every MRZ font the reader meets (OCR-B's O is a little rounder than
 * its 0, the common monospace fonts' barely), which the recogniser reads one for the other in a
 * mixed document number with no second guess worth the name. The check digit tells them apart:
 * O is worth 24 and 0 nothing, I 18 and 1 one, so with weights 7, 3, 1 one such swap always
 * moves the digit (by 8, 2 or 4 for O/0; 9, 1 or 7 for I/1).
 */
const PARTNER: Record<string, string> = { O: '0', '0': 'O', I: '1', '1': 'I' };

/**
 * The check digit must be read at least this surely (p / (p + runner-up)) before a swap is made
 * to fit it: a misread digit would otherwise "repair" a right character into a wrong one.
 */
const SURE_DIGIT = 0.9;

/** When several swaps make the checks hold, the cheapest is taken only when it is this much likelier than the next. */
const CLEAR_WINNER = Math.log(10);

/**
 * A pair of swaps is weighed only where each swapped-in character kept at least 1/20 of the read
 * one's probability (log-odds PAIR_OPEN). The recogniser alone gives an O read as 0 under 1/25;
 * the OCR-B glyph evidence (mrz-glyphs.ts) lifts it where the cell allows an O, and in a font the
 * templates do not fit nothing does: there a pair is left failing and flagged.
 */
const PAIR_OPEN = Math.log(20);

const logOf = (d: SlotDist, c: string) => Math.log(Math.max(1e-6, d[MRZ_ALPHABET.indexOf(c)]!));

function certainty(d: SlotDist, c: string): number {
  const k = MRZ_ALPHABET.indexOf(c);
  let other = 0;
  for (let j = 0; j < d.length; j++) if (j !== k) other = Math.max(other, d[j]!);
  return d[k]! / (d[k]! + other || 1);
}

/**
 * The one look-alike swap (O for 0, I for 1, or back) in the data of `check`, failing on `lines`,
 * that makes it and every other check covering that position hold without breaking one that held,
 * however unlikely the recogniser found the swapped character; with, where the composite still
 * fails after it, the one more swap in its data that makes it hold (data only it covers, or data
 * whose own check failed as well and then holds too).
 * Undefined when a check digit involved is not read surely, when nothing fits, or when two fit
 * about as well. Two swaps in the check's own data are weighed too (two look-alikes in one number),
 * only where the pixels left both open (PAIR_OPEN). The caller flags nothing: a swapped character keeps its own low probability, and
 * its field is reported uncertain (see mrzConfidence). `cost` is the swaps' log-probability below the read characters, by
 * the recogniser's odds, for the repair to weigh against its other changes.
 */
export function lookAlikeSwap(format: FormatDef, lines: string[][], slots: SlotDist[][], check: CheckDef): { swaps: { line: number; pos: number; c: string }[]; cost: number } | undefined {
  const sureDigit = (k: CheckDef) => {
    const digit = lines[k.digit.line]?.[k.digit.pos];
    const d = slots[k.digit.line]?.[k.digit.pos];
    return digit !== undefined && d !== undefined && certainty(d, digit) >= SURE_DIGIT;
  };
  if (!sureDigit(check)) return undefined;
  const asStrings = () => lines.map((l) => l.join(''));
  const heldBefore = new Set(
    resolveChecks(format, asStrings())
      .filter((o) => o.valid)
      .map((o) => o.name),
  );
  const covering = (line: number, pos: number) => format.checks.filter((k) => k.data.some((s) => s.line === line && pos >= s.start && pos < s.end)).map((k) => k.name);
  const swaps = (spans: Span[], only?: (line: number, pos: number) => boolean) =>
    spans.flatMap((sp) =>
      Array.from({ length: sp.end - sp.start }, (_, k) => sp.start + k).flatMap((pos) => {
        const cur = lines[sp.line]![pos]!;
        const c = PARTNER[cur];
        if (!c || !classAllows(format.classes[sp.line]![pos]!, c) || (only && !only(sp.line, pos))) return [];
        const d = slots[sp.line]![pos]!;
        return [{ line: sp.line, pos, c, cur, cost: logOf(d, cur) - logOf(d, c) }];
      }),
    );
  type Swap = ReturnType<typeof swaps>[number];
  /** Whether the swaps leave every check over them holding, and every check that held holding. */
  const fit = (made: Swap[]) => {
    for (const s of made) lines[s.line]![s.pos] = s.c;
    const now = resolveChecks(format, asStrings());
    for (const s of made) lines[s.line]![s.pos] = s.cur;
    const over = new Set(made.flatMap((s) => covering(s.line, s.pos)));
    return { holds: now.every((o) => o.valid || (!over.has(o.name) && !heldBefore.has(o.name))), failing: now.filter((o) => !o.valid && over.has(o.name)).map((o) => o.name) };
  };
  const fits: { made: Swap[]; cost: number }[] = [];
  for (const s1 of swaps(check.data)) {
    const first = fit([s1]);
    if (first.holds) fits.push({ made: [s1], cost: s1.cost });
    else if (first.failing.length === 1 && first.failing[0] !== check.name) {
      // This check holds and one check over the same character still fails (the composite): a
      // second swap in its data, where no check that held covers it (an optional data field only
      // the composite covers, or a TD3's personal number whose own check failed too: an O read
      // as 0 in it and another in the number), and every check over the two then holds.
      const other = format.checks.find((k) => k.name === first.failing[0])!;
      if (!sureDigit(other)) continue;
      const failedToo = (name: CheckDef['name']) => name !== check.name && !heldBefore.has(name) && sureDigit(format.checks.find((k) => k.name === name)!);
      const open = (line: number, pos: number) => covering(line, pos).every((name) => name === other.name || failedToo(name));
      for (const s2 of swaps(other.data, open)) if (fit([s1, s2]).holds) fits.push({ made: [s1, s2], cost: s1.cost + s2.cost });
    }
  }
  // Two look-alikes in the same data (a number's `OO` read `00`): with weights 7, 3, 1 a pair of
  // swaps moves the digit by as much as some other pair about one time in ten, so a pair is
  // weighed only where the pixels left both swapped characters open (see PAIR_OPEN), and it must
  // still be the clear winner over every other fit, single swaps included.
  const open = swaps(check.data).filter((s) => s.cost <= PAIR_OPEN);
  for (let a = 0; a < open.length; a++)
    for (let b = a + 1; b < open.length; b++) {
      const pair = [open[a]!, open[b]!];
      if (fit(pair).holds) fits.push({ made: pair, cost: pair[0]!.cost + pair[1]!.cost });
    }
  fits.sort((a, b) => a.cost - b.cost);
  const [best, next] = fits;
  if (!best || (next && next.cost - best.cost < CLEAR_WINNER)) return undefined;
  return { swaps: best.made.map(({ line, pos, c }) => ({ line, pos, c })), cost: best.cost };
}
