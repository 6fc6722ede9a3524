/**
 * Machine-readable zone layouts: ICAO Doc 9303's, and the French national identity card's
 * (1988-2021), which has a TD2's two 36-character rows but not its fields. Where each field
 * sits, which characters it may hold, and which ranges each check digit covers.
 */

/** The 37 characters an MRZ may contain, in a fixed order (used as class indices). */
export const MRZ_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<';

/**
 * Character classes: A letters and filler, N digits, X letters, digits and filler,
 * S sex (M, F, X or filler), C a check digit (a digit, or a filler where ICAO allows one),
 * D a digit or a filler (a field of digits a document may leave blank), L a letter and Y a
 * letter or digit: the first character of a field ICAO prints left-aligned and never leaves
 * empty (the issuing state's code, the document number), which a filler can only follow.
 */
export type CharClass = 'A' | 'N' | 'X' | 'S' | 'C' | 'D' | 'L' | 'Y';

export type FormatName = 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB' | 'FRA_CNI';

export interface Span {
  line: number;
  start: number;
  /** Exclusive. */
  end: number;
}

export interface CheckDef {
  name: 'doc' | 'dob' | 'exp' | 'pers' | 'comp';
  data: Span[];
  digit: { line: number; pos: number };
  /** The check digit may be a filler when the data is all fillers (TD3 personal number). */
  fillerWhenEmpty?: boolean;
}

export interface FormatDef {
  name: FormatName;
  lines: number;
  length: number;
  /** Field name -> span. */
  fields: Record<string, Span>;
  /** One class per character of each line. */
  classes: CharClass[][];
  checks: CheckDef[];
  /**
   * Characters every document of the layout prints where it prints them (the French card's
   * `IDFRA`, by which the layout was picked): taken as printed, never a misread's alternative.
   */
  fixed?: { line: number; start: number; text: string };
}

/** The character the layout prints at this position whatever the document, if any (see FormatDef.fixed). */
export function fixedChar(format: FormatDef, line: number, pos: number): string | undefined {
  const f = format.fixed;
  return f && f.line === line && pos >= f.start && pos < f.start + f.text.length ? f.text[pos - f.start] : undefined;
}

const s = (line: number, start: number, end: number): Span => ({ line, start, end });

/**
 * The first characters of the issuing state's code and of the document number: ICAO 9303 prints
 * a field from its left and pads it on the right, and neither is ever empty (a one-letter code
 * is `D<<`), so a filler is never first. A filler read there is a misread letter (the K of
 * `IDMNEKIU…` read as the filler whose shape it contains). Not the nationality, which a real
 * Macau identity card leaves blank (`…1212307<<<…`), nor the names (mrz-repair.ts weighs a filler
 * there as unlikely, not impossible).
 */
function leadingChars(issuingState: Span, documentNumber: Span): [Span, CharClass][] {
  return [
    [s(issuingState.line, issuingState.start, issuingState.start + 1), 'L'],
    [s(documentNumber.line, documentNumber.start, documentNumber.start + 1), 'Y'],
  ];
}

function classes(lines: number, length: number, spans: [Span, CharClass][]): CharClass[][] {
  const out = Array.from({ length: lines }, () => new Array<CharClass>(length).fill('X'));
  for (const [span, cls] of spans) for (let i = span.start; i < span.end; i++) out[span.line]![i] = cls;
  return out;
}

/** TD3 passports and MRV-A visas share a 2 x 44 layout up to position 28 of line 2. */
function twoLine(name: FormatName, length: 44 | 36): FormatDef {
  const visa = name === 'MRVA' || name === 'MRVB';
  const fields: Record<string, Span> = {
    document_code: s(0, 0, 2),
    issuing_country: s(0, 2, 5),
    names: s(0, 5, length),
    document_number: s(1, 0, 9),
    nationality: s(1, 10, 13),
    date_of_birth: s(1, 13, 19),
    sex: s(1, 20, 21),
    expiry_date: s(1, 21, 27),
  };
  const checks: CheckDef[] = [
    { name: 'doc', data: [s(1, 0, 9)], digit: { line: 1, pos: 9 } },
    { name: 'dob', data: [s(1, 13, 19)], digit: { line: 1, pos: 19 } },
    { name: 'exp', data: [s(1, 21, 27)], digit: { line: 1, pos: 27 } },
  ];
  const cls: [Span, CharClass][] = [
    [s(0, 0, 1), 'A'],
    // ICAO 9303 parts 4-7: passports, visas and TD2 cards print a letter or a filler
    // after the document letter (only TD1 cards are seen with digits there).
    [s(0, 1, 2), 'A'],
    [s(0, 2, 5), 'A'],
    [s(0, 5, length), 'A'],
    [s(1, 0, 9), 'X'],
    [s(1, 9, 10), 'C'],
    [s(1, 10, 13), 'A'],
    [s(1, 13, 19), 'N'],
    [s(1, 19, 20), 'C'],
    [s(1, 20, 21), 'S'],
    [s(1, 21, 27), 'N'],
    [s(1, 27, 28), 'C'],
    ...leadingChars(s(0, 2, 5), s(1, 0, 9)),
  ];
  if (visa) {
    fields.optional_data = s(1, 28, length);
  } else if (length === 44) {
    fields.optional_data = s(1, 28, 42);
    checks.push({ name: 'pers', data: [s(1, 28, 42)], digit: { line: 1, pos: 42 }, fillerWhenEmpty: true });
    checks.push({ name: 'comp', data: [s(1, 0, 10), s(1, 13, 20), s(1, 21, 43)], digit: { line: 1, pos: 43 } });
    cls.push([s(1, 42, 44), 'C']);
  } else {
    fields.optional_data = s(1, 28, 35);
    checks.push({ name: 'comp', data: [s(1, 0, 10), s(1, 13, 20), s(1, 21, 35)], digit: { line: 1, pos: 35 } });
    cls.push([s(1, 35, 36), 'C']);
  }
  return { name, lines: 2, length, fields, classes: classes(2, length, cls), checks };
}

function td1(): FormatDef {
  const fields: Record<string, Span> = {
    document_code: s(0, 0, 2),
    issuing_country: s(0, 2, 5),
    document_number: s(0, 5, 14),
    optional_data: s(0, 15, 30),
    date_of_birth: s(1, 0, 6),
    sex: s(1, 7, 8),
    expiry_date: s(1, 8, 14),
    nationality: s(1, 15, 18),
    optional_data_2: s(1, 18, 29),
    names: s(2, 0, 30),
  };
  const checks: CheckDef[] = [
    { name: 'doc', data: [s(0, 5, 14)], digit: { line: 0, pos: 14 } },
    { name: 'dob', data: [s(1, 0, 6)], digit: { line: 1, pos: 6 } },
    { name: 'exp', data: [s(1, 8, 14)], digit: { line: 1, pos: 14 } },
    { name: 'comp', data: [s(0, 5, 30), s(1, 0, 7), s(1, 8, 15), s(1, 18, 29)], digit: { line: 1, pos: 29 } },
  ];
  const cls: [Span, CharClass][] = [
    [s(0, 0, 1), 'A'],
    [s(0, 1, 2), 'X'],
    [s(0, 2, 5), 'A'],
    [s(0, 5, 14), 'X'],
    [s(0, 14, 15), 'C'],
    [s(1, 0, 6), 'N'],
    [s(1, 6, 7), 'C'],
    [s(1, 7, 8), 'S'],
    [s(1, 8, 14), 'N'],
    [s(1, 14, 15), 'C'],
    [s(1, 15, 18), 'A'],
    [s(1, 29, 30), 'C'],
    [s(2, 0, 30), 'A'],
    ...leadingChars(s(0, 2, 5), s(0, 5, 14)),
  ];
  return { name: 'TD1', lines: 3, length: 30, fields, classes: classes(3, 30, cls), checks };
}

/**
 * The French national identity card issued 1988-2021, two rows of 36 that are no ICAO TD2:
 * row 1 `IDFRA`, the surname (25) and the issuing office (6: department and office, or
 * fillers); row 2 the card number (12: year and month of issue, department, serial), its check
 * digit, the given names (14, separated by `<<`), the birth date and its check digit, the sex,
 * and a check digit over all of row 1 and row 2 up to it. No nationality (the card is only
 * issued to French nationals) and no expiry date.
 */
function fraCni(): FormatDef {
  const fields: Record<string, Span> = {
    document_code: s(0, 0, 2),
    issuing_country: s(0, 2, 5),
    surname: s(0, 5, 30),
    optional_data: s(0, 30, 36),
    document_number: s(1, 0, 12),
    given_names: s(1, 13, 27),
    date_of_birth: s(1, 27, 33),
    sex: s(1, 34, 35),
  };
  const checks: CheckDef[] = [
    { name: 'doc', data: [s(1, 0, 12)], digit: { line: 1, pos: 12 } },
    { name: 'dob', data: [s(1, 27, 33)], digit: { line: 1, pos: 33 } },
    { name: 'comp', data: [s(0, 0, 36), s(1, 0, 35)], digit: { line: 1, pos: 35 } },
  ];
  const cls: [Span, CharClass][] = [
    [s(0, 0, 30), 'A'],
    // The office: a department (two digits and a digit or letter, 2A/2B for Corsica) and a
    // three-digit office number, or fillers on some cards.
    [s(0, 30, 31), 'D'],
    [s(0, 31, 33), 'X'],
    [s(0, 33, 36), 'D'],
    // Year and month of issue, the department (as above), a five-digit serial.
    [s(1, 0, 4), 'N'],
    [s(1, 4, 7), 'X'],
    [s(1, 7, 12), 'N'],
    [s(1, 12, 13), 'C'],
    [s(1, 13, 27), 'A'],
    [s(1, 27, 33), 'N'],
    [s(1, 33, 34), 'C'],
    [s(1, 34, 35), 'S'],
    [s(1, 35, 36), 'C'],
  ];
  return { name: 'FRA_CNI', lines: 2, length: 36, fields, classes: classes(2, 36, cls), checks, fixed: { line: 0, start: 0, text: 'IDFRA' } };
}

export const FORMATS: Record<FormatName, FormatDef> = {
  TD1: td1(),
  TD2: twoLine('TD2', 36),
  TD3: twoLine('TD3', 44),
  MRVA: twoLine('MRVA', 44),
  MRVB: twoLine('MRVB', 36),
  FRA_CNI: fraCni(),
};

/**
 * The names field of the row the reader's extra names passes re-read (mrz-names-choice,
 * mrz-reread): ICAO's names field, or the French card's surname, which shares its row with
 * the document code and country as a passport's names do.
 */
export function namesRowField(format: FormatDef): Span | undefined {
  return format.fields.names ?? format.fields.surname;
}

/** The spans of a layout's names: ICAO's one names field, or the French card's surname and given names. */
export function nameSpans(format: FormatDef): Span[] {
  const f = format.fields;
  return [f.names, f.surname, f.given_names].filter((sp): sp is Span => sp !== undefined);
}

/**
 * Whether two 36-character rows are a French identity card's rather than an ICAO TD2's: row 1
 * opens `IDFRA` (one character may be misread) and row 2 holds the card's structure where the
 * TD2 holds its own. Positions 10-12 are the end of the card's numeric serial (a TD2's
 * nationality, letters) and 13-18 the start of its given names (a TD2's birth date, digits):
 * the majority of those nine decides. An ICAO TD2 issued by France keeps its own layout.
 */
export function looksFraCni(row1: string, row2: string): boolean {
  if (row1.length !== 36 || row2.length !== 36) return false;
  let same = 0;
  for (let i = 0; i < 5; i++) if (row1[i] === 'IDFRA'[i]) same++;
  if (same < 4) return false;
  const digit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  let french = 0;
  for (let i = 10; i < 13; i++) if (digit(row2[i])) french++;
  for (let i = 13; i < 19; i++) if (!digit(row2[i])) french++;
  return french >= 5;
}

/** Layouts a zone of this many lines of this length can have (visas are told apart by their 'V' code). */
export function formatsFor(lines: number, length: number): FormatDef[] {
  return Object.values(FORMATS).filter((f) => f.lines === lines && f.length === length);
}

/** Value of an MRZ character in the 7-3-1 check digit: digits as such, A=10..Z=35, filler 0. */
export function charValue(c: string): number {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'A' && c <= 'Z') return c.charCodeAt(0) - 55;
  return 0;
}

const WEIGHTS = [7, 3, 1];

/** ICAO 9303 check digit of a string (weights 7, 3, 1 repeating, sum mod 10). */
export function checkDigit(data: string): number {
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += charValue(data[i]!) * WEIGHTS[i % 3]!;
  return sum % 10;
}

export function spanText(lines: string[], span: Span): string {
  return (lines[span.line] ?? '').slice(span.start, span.end);
}

/** Whether a check holds on these lines (a filler check digit counts as 0 where ICAO allows it). */
export function checkHolds(lines: string[], check: CheckDef): boolean {
  const data = check.data.map((sp) => spanText(lines, sp)).join('');
  const d = (lines[check.digit.line] ?? '')[check.digit.pos];
  if (d === undefined) return false;
  if (d === '<') return check.fillerWhenEmpty === true && /^<*$/.test(data);
  return d >= '0' && d <= '9' && Number(d) === checkDigit(data);
}

/** Characters a class admits. */
export function classAllows(cls: CharClass, c: string): boolean {
  switch (cls) {
    case 'A':
      return (c >= 'A' && c <= 'Z') || c === '<';
    case 'N':
      return c >= '0' && c <= '9';
    case 'S':
      return c === 'M' || c === 'F' || c === 'X' || c === '<';
    case 'C':
    case 'D':
      return (c >= '0' && c <= '9') || c === '<';
    case 'X':
      return MRZ_ALPHABET.includes(c);
    case 'L':
      return c >= 'A' && c <= 'Z';
    case 'Y':
      return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }
}

/** The most probable character of a position's distribution, only letters and the filler competing with `letters`. */
function topChar(d: ArrayLike<number> | undefined, letters = false): string {
  if (!d) return '';
  let best = letters ? 10 : 0;
  for (let k = best + 1; k < d.length; k++) if (d[k]! > d[best]!) best = k;
  return MRZ_ALPHABET[best] ?? '';
}

/**
 * The layout of a zone of `lines` rows of `length` characters, from the per-position
 * distributions over MRZ_ALPHABET: two-line layouts are told apart by their first character,
 * 'V' marks a visa, and a 36-character zone by its structure as a French identity card (see
 * looksFraCni; the document code and country read as letters, which they are).
 */
export function pickFormat(lines: number, length: number, slots: readonly (readonly ArrayLike<number>[])[]): FormatDef {
  if (lines === 3) return FORMATS.TD1;
  const visa = topChar(slots[0]?.[0]) === 'V';
  if (length === 44) return visa ? FORMATS.MRVA : FORMATS.TD3;
  if (visa) return FORMATS.MRVB;
  const row1 = Array.from(slots[0] ?? [], (d, i) => topChar(d, i < 5)).join('');
  const row2 = Array.from(slots[1] ?? [], (d) => topChar(d)).join('');
  return looksFraCni(row1, row2) ? FORMATS.FRA_CNI : FORMATS.TD2;
}
