import { MRZ_COUNTRY_CODES } from './mrz-countries.js';
import { classAllows, MRZ_ALPHABET, type CharClass, type FormatDef, type Span } from './mrz-format.js';
import { resolveChecks } from './mrz-parser.js';

/** Probabilities over MRZ_ALPHABET for one character position of a line. */
export type SlotDist = Float32Array;

/** Characters an OCR engine mistakes for each other in the OCR-B font. */
const CONFUSABLE: Record<string, string> = {
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

function withFillerPrior(d: SlotDist): SlotDist {
  const out = new Float32Array(d);
  out[FILLER] = out[FILLER]! * NAME_FILLER_PRIOR;
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
  /** Characters changed by the check-digit and country-code searches (not by class constraints). */
  checkFixes: number;
}

/**
 * Inside a names field fillers come alone (between name parts) or in pairs (between
 * surname and given names); three in a row can only be the trailing padding, so
 * everything after them is padding too (a K or C read there is a misread filler).
 */
export function fillNameTail(line: string[], span: Span): void {
  for (let i = span.start; i + 2 < span.end; i++) {
    if (line[i] === '<' && line[i + 1] === '<' && line[i + 2] === '<') {
      for (let j = i + 3; j < span.end; j++) line[j] = '<';
      return;
    }
  }
}

/** Cost, in log-probability, of the read country code vs the nearest listed one. */
const MAX_COUNTRY_COST = Math.log(50);

/** A code that is no country is replaced by the most probable listed code, if that is close enough. */
function fixCountry(lines: string[][], slots: SlotDist[][], span: Span): number {
  const line = lines[span.line]!;
  const read = line.slice(span.start, span.end).join('');
  if (MRZ_COUNTRY_CODES.has(read)) return 0;
  const lp = (pos: number, c: string) => Math.log(Math.max(1e-6, slots[span.line]![pos]![MRZ_ALPHABET.indexOf(c)]!));
  const base = [...read].reduce((acc, c, k) => acc + lp(span.start + k, c), 0);
  let best: { code: string; cost: number } | undefined;
  for (const code of MRZ_COUNTRY_CODES) {
    const cost = base - [...code].reduce((acc, c, k) => acc + lp(span.start + k, c), 0);
    if (cost < MAX_COUNTRY_COST && (!best || cost < best.cost)) best = { code, cost };
  }
  if (!best) return 0;
  let changed = 0;
  [...best.code].forEach((c, k) => {
    if (line[span.start + k] !== c) changed++;
    line[span.start + k] = c;
  });
  return changed;
}

/** Changes whose probability falls this far below the read character are not made (a clearly printed wrong digit stays wrong). */
const MAX_FIX_COST = Math.log(30);

/**
 * Turns per-position distributions into MRZ lines: each position takes the most
 * probable character its field admits (digits in dates, letters in names, ...),
 * then every failing check digit gets the cheapest one- or two-character change,
 * in log-probability, that makes it hold, if one is cheap enough.
 */
export function repairMrz(format: FormatDef, slots: SlotDist[][]): RepairResult {
  const names = format.fields.names;
  const lines = slots.map((line, li) =>
    line.map((d, pos) => {
      // Fillers make up much of a names field; as a prior, a filler the recogniser
      // found a quarter as likely as a letter wins (a blurred '<' reads as C or K).
      if (names && li === names.line && pos >= names.start && pos < names.end) d = withFillerPrior(d);
      return bestInClass(d, format.classes[li]![pos]!).c;
    }),
  );
  let fixes = 0;
  if (names) fillNameTail(lines[names.line]!, names);
  for (const field of ['issuing_country', 'nationality']) {
    const span = format.fields[field];
    if (span) fixes += fixCountry(lines, slots, span);
  }
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
    const cands = positions.map(([li, pos]) => {
      const cur = lines[li]![pos]!;
      const base = logp(li, pos, cur);
      const cls = format.classes[li]![pos]!;
      return [...MRZ_ALPHABET]
        .filter((c) => c !== cur && classAllows(cls, c))
        .map((c) => ({ c, cost: base - logp(li, pos, c) }))
        .filter((x) => x.cost < MAX_FIX_COST)
        .sort((a, b) => a.cost - b.cost)
        .slice(0, 4);
    });
    // A fix must make this check hold without breaking one that already held.
    const heldBefore = new Set(resolveChecks(format, asStrings()).filter((o) => o.valid).map((o) => o.name));
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
          for (const a of cands[i]!) for (const b of cands[j]!) if (a.cost + b.cost < MAX_FIX_COST) tryChanges([[i, a.c], [j, b.c]], a.cost + b.cost);
    }
    if (best) {
      for (const [i, c] of best.changes) lines[positions[i]![0]]![positions[i]![1]] = c;
      fixes += best.changes.length;
    }
  }
  return { lines: asStrings(), checkFixes: fixes };
}
