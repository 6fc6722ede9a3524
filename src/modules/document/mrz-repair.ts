import { MRZ_COUNTRY_CODES } from './mrz-countries.js';
import { classAllows, fixedChar, MRZ_ALPHABET, nameSpans, type CharClass, type FormatDef, type Span } from './mrz-format.js';
import { resolveChecks } from './mrz-parser.js';
import { lookAlikeSwap } from './mrz-lookalike-swap.js';

/** Probabilities over MRZ_ALPHABET for one character position of a line. */
export type SlotDist = Float32Array;

/** Characters an OCR engine mistakes for each other in the OCR-B font. */
export const CONFUSABLE: Record<string, string> = {
  '0': 'ODQU',
  O: '0DQ',
  D: '0O',
  Q: '0O',
  U: '0',
  '1': 'IL',
  I: '1L',
  L: '1I',
  '2': 'Z',
  Z: '2',
  '5': 'S',
  S: '5',
  '8': 'B',
  B: '8',
  '6': 'G',
  G: '6',
  '4': 'A',
  A: '4',
  '7': 'T',
  T: '7',
  '<': 'KCE',
  K: '<',
  C: '<',
  E: '<',
};

/**
 * A distribution for a character read by an engine that gives no probabilities
 * (tesseract, tests): the read character dominates and its look-alikes share a
 * little mass, so class constraints and check digits can still pick them.
 */
export function distFromChar(c: string, lookAlike = 0.05): SlotDist {
  const d = new Float32Array(MRZ_ALPHABET.length).fill(1e-4);
  const idx = MRZ_ALPHABET.indexOf(c);
  if (idx >= 0) d[idx] = 0.9;
  for (const alt of CONFUSABLE[c] ?? '') d[MRZ_ALPHABET.indexOf(alt)] = lookAlike;
  return d;
}

export function distsFromLine(line: string, lookAlike = 0.05): SlotDist[] {
  return [...line].map((c) => distFromChar(c, lookAlike));
}

const FILLER = MRZ_ALPHABET.length - 1;
const NAME_FILLER_PRIOR = 4;

function withFillerPrior(d: SlotDist, prior = NAME_FILLER_PRIOR): SlotDist {
  const out = new Float32Array(d);
  out[FILLER] = out[FILLER]! * prior;
  return out;
}

/** Most probable character of a slot that its class admits. */
function bestInClass(d: SlotDist, cls: CharClass): { c: string; p: number } {
  let best = { c: '<', p: -1 };
  for (let i = 0; i < MRZ_ALPHABET.length; i++) {
    const c = MRZ_ALPHABET[i]!;
    if (d[i]! > best.p && classAllows(cls, c)) best = { c, p: d[i]! };
  }
  return best;
}

export interface RepairResult {
  lines: string[];
  /** Characters changed by the check-digit search (not by class constraints). */
  checkFixes: number;
}

/** A letter read with at least this probability inside a run of fillers may be real. */
const LETTER_SEEN = 0.2;

const logOf = (d: SlotDist, c: string) => Math.log(Math.max(1e-6, d[MRZ_ALPHABET.indexOf(c)]!));

/** The most probable letter of a slot. */
function bestLetter(d: SlotDist): string {
  let best = 10;
  for (let i = 11; i < 36; i++) if (d[i]! > d[best]!) best = i;
  return MRZ_ALPHABET[best]!;
}

/**
 * Inside a names field fillers come alone (between name parts) or in pairs (between
 * surname and given names); three in a row can only be the trailing padding. When
 * letters follow such a run, either they are misread fillers (a blurred '<' reads as
 * K, C or E) or one filler of the run is a misread letter (K<< read as <<<, which would
 * wipe the given names): whichever costs less probability is chosen.
 */
export function fillNameTail(line: string[], span: Span, slots?: SlotDist[]): void {
  for (let i = span.start; i + 2 < span.end; i++) {
    if (line[i] !== '<' || line[i + 1] !== '<' || line[i + 2] !== '<') continue;
    let runEnd = i + 3;
    while (runEnd < span.end && line[runEnd] === '<') runEnd++;
    const after: number[] = [];
    for (let j = runEnd; j < span.end; j++) if (line[j] !== '<') after.push(j);
    if (after.length === 0) return;
    // Cost of making every later letter a filler.
    const clearCost = slots ? after.reduce((acc, j) => acc + logOf(slots[j]!, line[j]!) - logOf(slots[j]!, '<'), 0) : 0;
    // The cheapest single letter inside the run that leaves no run of three (K<<, <K<, <<K),
    // among letters the recogniser did see there (at least LETTER_SEEN).
    let letter: { pos: number; c: string; cost: number } | undefined;
    if (slots && i > span.start) {
      for (let pos = i; pos < runEnd; pos++) {
        if (pos - i > 2 || runEnd - pos - 1 > 2) continue;
        const c = bestLetter(slots[pos]!);
        if (slots[pos]![MRZ_ALPHABET.indexOf(c)]! < LETTER_SEEN) continue;
        const cost = logOf(slots[pos]!, '<') - logOf(slots[pos]!, c);
        if (!letter || cost < letter.cost) letter = { pos, c, cost };
      }
    }
    if (letter && letter.cost < clearCost) {
      line[letter.pos] = letter.c;
      i = letter.pos;
      continue;
    }
    for (let j = runEnd; j < span.end; j++) line[j] = '<';
    return;
  }
}

/**
 * A country code as printed. ICAO codes are letters (and fillers), so a digit read
 * there is taken as a letter it resembles; where the recogniser found two or three
 * letters about equally likely at a position (0 as O, D or Q), a listed code among
 * those combinations is preferred. A code is never replaced by a listed one the
 * recogniser did not see, and a code printed in digits (every character read as a
 * digit with near certainty, as on some non-conformant documents) stays digits.
 */
function countryCode(slots: SlotDist[], classes: CharClass[]): string {
  const argmax = (d: SlotDist) => {
    let best = 0;
    for (let k = 1; k < d.length; k++) if (d[k]! > d[best]!) best = k;
    return best;
  };
  if (slots.every((d) => argmax(d) < 10 && d[argmax(d)]! >= CLEAR_DIGIT)) return slots.map((d) => MRZ_ALPHABET[argmax(d)]!).join('');
  const options = slots.map((d, k) => {
    // The layout's classes: the issuing state's code opens with a letter (mrz-format.ts, leadingChars).
    const cls = classes[k]!;
    const top = bestInClass(d, cls);
    return [...MRZ_ALPHABET.slice(10)]
      .filter((c) => classAllows(cls, c))
      .map((c) => ({ c, p: d[MRZ_ALPHABET.indexOf(c)]! }))
      .filter((x) => x.p >= top.p * NEAR_TIE)
      .sort((a, b) => b.p - a.p)
      .slice(0, 3);
  });
  let best = { code: options.map((o) => o[0]!.c).join(''), p: -1 };
  const walk = (k: number, code: string, p: number) => {
    if (k === options.length) {
      if (MRZ_COUNTRY_CODES.has(code) && p > best.p) best = { code, p };
      return;
    }
    for (const o of options[k]!) walk(k + 1, code + o.c, p * o.p);
  };
  walk(0, '', 1);
  return best.code;
}

/**
 * A passport's or an identity card's issuing state is nearly always its holder's nationality.
 * Where one of the two codes is on no list and the other is a listed code one letter away, which
 * the recogniser saw at that letter too (at least SIBLING_SEEN of the letter it read), the
 * listed one is what is printed: GNQ read GNO beside GNQ, NFK read NEK beside NFK. The list and
 * the document's other field are two witnesses; a code the pixels ruled out is never taken, and
 * two codes that differ more (a visa's issuing state and its holder's nationality) are left as read.
 */
function agreeOnCountry(lines: string[][], slots: SlotDist[][], spans: Span[]): void {
  if (spans.length !== 2) return;
  const code = (sp: Span) => lines[sp.line]!.slice(sp.start, sp.end).join('');
  for (const [read, other] of [spans, [...spans].reverse()] as [Span, Span][]) {
    const a = code(read);
    const b = code(other);
    if (MRZ_COUNTRY_CODES.has(a) || !MRZ_COUNTRY_CODES.has(b) || a.length !== b.length) continue;
    const differ = [...a].flatMap((c, k) => (c === b[k] ? [] : [k]));
    if (differ.length !== 1) continue;
    const k = differ[0]!;
    const d = slots[read.line]![read.start + k]!;
    if (d[MRZ_ALPHABET.indexOf(b[k]!)]! < SIBLING_SEEN * d[MRZ_ALPHABET.indexOf(a[k]!)]!) continue;
    lines[read.line]![read.start + k] = b[k]!;
    return;
  }
}
/** On three such codes of development seeds the recogniser gave the listed letter 0.08-0.45 of the one it read. */
const SIBLING_SEEN = 1 / 20;

/** Letters within this ratio of a position's most probable letter count as a near tie. */
const NEAR_TIE = 0.5;
const CLEAR_DIGIT = 0.95;

/** Prior for a filler as the document code's second character (P<, I<, V<: most documents print one). */
const CODE_FILLER_PRIOR = 2;
/**
 * Prior for a digit there, where the layout admits one (TD1: ICAO leaves the character to the
 * issuer, and US passport cards print `C1`); other issuers print a letter or a filler. At the
 * row's start, often beyond the glyph stage's anchors, a blurred `AC` or `ID` read `0` about as
 * surely as `C` or `D` (0.36 against 0.33, 0.39 against 0.22 on two development seeds' cards), and
 * nothing else settles it: the character is under no check digit. A digit read four times as
 * surely as any letter is still read.
 */
const CODE_DIGIT_PRIOR = 1 / 4;

/** A distribution of the document code's second character with its priors (a filler likelier, a digit less so). */
function withCodePrior(d: SlotDist): SlotDist {
  const out = withFillerPrior(d, CODE_FILLER_PRIOR);
  for (let i = 0; i < MRZ_ALPHABET.length; i++) if (MRZ_ALPHABET[i]! <= '9') out[i] = out[i]! * CODE_DIGIT_PRIOR;
  return out;
}

/** Changes whose probability falls this far below the read character are not made (a clearly printed wrong digit stays wrong). */
const MAX_FIX_COST = Math.log(30);

/**
 * How much likelier a look-alike swap (O for 0, I for 1) is than the recogniser's odds say, as a
 * log factor: its odds against the partner of a character it read are overconfident. Measured on
 * 400 documents of development seed 1701920548: where a look-alike swap and another change both
 * made a failing check hold, and differed, the swap was what was printed 7 times, the other change
 * 2 times (it was e^1.5 and e^9.6 times likelier than the swap), neither 3 times; four of the
 * seven right swaps were within e^0.9 of the other change's odds.
 */
const LOOKALIKE_ODDS = Math.log(3);

/** The most a filler read at a check digit that takes none may cost to become a digit (one a third as likely). */
const FILLER_AS_DIGIT_MAX_COST = Math.log(3);

/**
 * Turns per-position distributions into MRZ lines: each position takes the most
 * probable character its field admits (digits in dates, letters in names, ...),
 * then every failing check digit gets the cheapest one- or two-character change,
 * in log-probability, that makes it hold, if one is cheap enough.
 */
export function repairMrz(format: FormatDef, slots: SlotDist[][]): RepairResult {
  const names = nameSpans(format);
  const inNames = (li: number, pos: number) => names.some((sp) => li === sp.line && pos >= sp.start && pos < sp.end);
  const namesStart = (li: number, pos: number) => names.some((sp) => li === sp.line && pos === sp.start);
  const countries = ['issuing_country', 'nationality'].map((f) => format.fields[f]).filter((sp): sp is Span => sp !== undefined);
  const lines = slots.map((line, li) =>
    line.map((d, pos) => {
      // The layout's own characters (a French card's IDFRA, one of which may have read otherwise).
      const fixed = fixedChar(format, li, pos);
      if (fixed) return fixed;
      // Fillers make up much of a names field; as a prior, a filler the recogniser
      // found a quarter as likely as a letter wins (a blurred '<' reads as C or K). Except
      // first: ICAO prints the primary identifier there, and only a few issuers leave it
      // empty, so there a filler must be four times as likely as the letter (the K opening
      // `VDAZEKLOOW…`, whose glyph holds the filler's chevron, was read as the filler).
      if (inNames(li, pos)) d = withFillerPrior(d, namesStart(li, pos) ? 1 / NAME_FILLER_PRIOR : NAME_FILLER_PRIOR);
      if (li === 0 && pos === 1) d = withCodePrior(d);
      return bestInClass(d, format.classes[li]![pos]!).c;
    }),
  );
  for (const sp of countries) {
    if (fixedChar(format, sp.line, sp.start) !== undefined) continue;
    const code = countryCode(slots[sp.line]!.slice(sp.start, sp.end), format.classes[sp.line]!.slice(sp.start, sp.end));
    lines[sp.line]!.splice(sp.start, code.length, ...code);
  }
  agreeOnCountry(lines, slots, countries);
  let fixes = 0;
  for (const sp of names) fillNameTail(lines[sp.line]!, sp, slots[sp.line]);
  const logp = (li: number, pos: number, c: string) => Math.log(Math.max(1e-6, slots[li]![pos]![MRZ_ALPHABET.indexOf(c)]!));
  const asStrings = () => lines.map((l) => l.join(''));

  // Individual checks first, the composite (which spans them) last.
  const order = [...format.checks].sort((a, b) => Number(a.name === 'comp') - Number(b.name === 'comp'));
  for (const check of order) {
    const outcome = resolveChecks(format, asStrings()).find((o) => o.name === check.name);
    if (!outcome || outcome.valid) continue;
    const positions: [number, number][] = [];
    for (const sp of check.data) for (let p = sp.start; p < sp.end; p++) positions.push([sp.line, p]);
    positions.push([check.digit.line, check.digit.pos]);
    // Candidates per position: admitted characters other than the current one, cheapest first.
    const cands = positions.map(([li, pos], k) => {
      const cur = lines[li]![pos]!;
      const base = logp(li, pos, cur);
      const cls = format.classes[li]![pos]!;
      // A check digit read as a filler where the check takes none: a digit only if the recogniser
      // nearly saw one. A 44-character zone read 36 wide ends its second row in a filler where a
      // TD2's composite digit sits; made into whatever digit fits, it passed every check.
      const maxCost = k === positions.length - 1 && cur === '<' && !check.fillerWhenEmpty ? FILLER_AS_DIGIT_MAX_COST : MAX_FIX_COST;
      return [...MRZ_ALPHABET]
        .filter((c) => c !== cur && classAllows(cls, c) && fixedChar(format, li, pos) === undefined)
        .map((c) => ({ c, cost: base - logp(li, pos, c) }))
        .filter((x) => x.cost < maxCost)
        .sort((a, b) => a.cost - b.cost)
        .slice(0, 4);
    });
    // A fix must make this check hold without breaking one that already held.
    const heldBefore = new Set(
      resolveChecks(format, asStrings())
        .filter((o) => o.valid)
        .map((o) => o.name),
    );
    const holds = () => {
      const now = resolveChecks(format, asStrings());
      return now.every((o) => o.valid || (o.name !== check.name && !heldBefore.has(o.name)));
    };
    let best: { changes: [number, string][]; cost: number } | undefined;
    const tryChanges = (changes: [number, string][], cost: number) => {
      if (best && cost >= best.cost) return;
      const saved = changes.map(([i]) => lines[positions[i]![0]]![positions[i]![1]]!);
      for (const [i, c] of changes) lines[positions[i]![0]]![positions[i]![1]] = c;
      if (holds()) best = { changes, cost };
      changes.forEach(([i], k) => (lines[positions[i]![0]]![positions[i]![1]] = saved[k]!));
    };
    for (let i = 0; i < positions.length; i++) for (const a of cands[i]!) tryChanges([[i, a.c]], a.cost);
    if (!best) {
      for (let i = 0; i < positions.length; i++)
        for (let j = i + 1; j < positions.length; j++)
          for (const a of cands[i]!)
            for (const b of cands[j]!)
              if (a.cost + b.cost < MAX_FIX_COST)
                tryChanges(
                  [
                    [i, a.c],
                    [j, b.c],
                  ],
                  a.cost + b.cost,
                );
    }
    // The look-alike swap the check asks for (an O read as 0, mrz-lookalike-swap.ts): made where
    // nothing else fits, however unlikely the recogniser found it, and where another change fits
    // too unless that change is clearly likelier (the recogniser's odds against a look-alike are
    // overconfident: LOOKALIKE_ODDS).
    const swap = lookAlikeSwap(format, lines, slots, check);
    if (swap && !(best && best.cost <= swap.cost - LOOKALIKE_ODDS)) {
      for (const s of swap.swaps) lines[s.line]![s.pos] = s.c;
      fixes += swap.swaps.length;
    } else if (best) {
      for (const [i, c] of best.changes) lines[positions[i]![0]]![positions[i]![1]] = c;
      fixes += best.changes.length;
    }
  }
  return { lines: asStrings(), checkFixes: fixes };
}
