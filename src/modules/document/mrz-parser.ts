import type { Static } from 'typebox';
import { checkDigit, FORMATS, formatsFor, looksFraCni, spanText, type CheckDef, type FormatDef, type FormatName } from './mrz-format.js';
import type { MrzResultSchema } from './schema.js';

/** The spec's MRZ result, plus the document code (tells passports, ID cards and visas apart), as the schema defines it. */
export type MrzResult = Static<typeof MrzResultSchema>;

/**
 * What parsing the text alone gives: the reader adds field_confidence and warnings from the
 * recogniser's character probabilities (mrz-confidence.ts), which the text does not carry.
 */
export type ParsedMrzResult = Omit<MrzResult, 'field_confidence' | 'warnings'>;

export interface CheckOutcome {
  name: CheckDef['name'];
  data: string;
  printed: string;
  computed: number;
  valid: boolean;
}

export interface ParsedMrz {
  format: FormatName;
  result: ParsedMrzResult;
  checks: CheckOutcome[];
  optional_data: string;
}

/**
 * The layout of these lines: by line count and length, visas by their 'V' document code, the
 * French identity card by its structure (see looksFraCni).
 */
export function detectFormat(lines: string[]): FormatDef | undefined {
  const length = lines[0]?.length ?? 0;
  if (lines.some((l) => l.length !== length)) return undefined;
  const candidates = formatsFor(lines.length, length);
  if (candidates.length <= 1) return candidates[0];
  const visa = lines[0]!.startsWith('V');
  if (!visa && lines.length === 2 && looksFraCni(lines[0]!, lines[1]!)) return FORMATS.FRA_CNI;
  return candidates.find((f) => f.name !== 'FRA_CNI' && (f.name === 'MRVA' || f.name === 'MRVB') === visa);
}

/** Warning of a French identity card's reading: its zone holds no expiry date (the spec's field is empty). */
export const EXPIRY_NOT_IN_MRZ = 'expiry_date_not_in_mrz';

/**
 * Warnings that say what a layout lacks, set on every reading of it, not a doubt about this
 * reading: an integrator who accepts only readings without warnings passes over these.
 */
export const LAYOUT_WARNINGS: readonly string[] = [EXPIRY_NOT_IN_MRZ];

/**
 * The check digits as they apply to these lines. A TD1/TD2 document number longer
 * than nine characters puts a filler in the check position and continues in the
 * optional data, ending with its check digit (ICAO 9303 part 5/6, note j).
 */
export function resolveChecks(format: FormatDef, lines: string[]): CheckOutcome[] {
  return format.checks.map((check) => {
    let data = check.data.map((sp) => spanText(lines, sp)).join('');
    let printed = (lines[check.digit.line] ?? '')[check.digit.pos] ?? '';
    if (check.name === 'doc' && printed === '<' && (format.name === 'TD1' || format.name === 'TD2')) {
      const overflow = format.name === 'TD1' ? spanText(lines, { line: 0, start: 15, end: 30 }) : spanText(lines, { line: 1, start: 28, end: 35 });
      const end = overflow.indexOf('<');
      const tail = end < 0 ? overflow : overflow.slice(0, end);
      if (tail.length >= 2) {
        data += tail.slice(0, -1);
        printed = tail.slice(-1);
      }
    }
    const computed = checkDigit(data);
    const emptyFiller = printed === '<' && check.fillerWhenEmpty === true && /^<*$/.test(data);
    const valid = emptyFiller || (/^[0-9]$/.test(printed) && Number(printed) === computed);
    return { name: check.name, data, printed, computed, valid };
  });
}

/** Name parts of a field separated by single spaces (fillers between parts, `<<` or `<`, and padding dropped). */
const nameParts = (field: string) => field.replace(/<+/g, ' ').trim();

/** SURNAME<<GIVEN<NAMES<<< -> surname "SURNAME", given names "GIVEN NAMES". */
export function splitNames(field: string): { surname: string; given_names: string } {
  const trimmed = field.replace(/<+$/, '');
  const sep = trimmed.indexOf('<<');
  if (sep < 0) return { surname: nameParts(trimmed), given_names: '' };
  return { surname: nameParts(trimmed.slice(0, sep)), given_names: nameParts(trimmed.slice(sep + 2)) };
}

/**
 * Parses MRZ lines of exactly the right lengths (TD1 3x30, TD2/MRV-B 2x36,
 * TD3/MRV-A 2x44). Visas are reported with the line geometry they share
 * (MRV-A as TD3, MRV-B as TD2) and parsed with their own layout (no composite digit);
 * so is the French identity card (2x36, `layout: FRA_CNI`), whose zone holds no
 * nationality (the card is issued to French nationals only: FRA) and no expiry date
 * (empty; the reader warns EXPIRY_NOT_IN_MRZ).
 */
export function parseMrz(lines: string[]): ParsedMrz | undefined {
  const format = detectFormat(lines);
  if (!format) return undefined;
  const f = (name: string) => {
    const span = format.fields[name];
    return span ? spanText(lines, span) : '';
  };
  const checks = resolveChecks(format, lines);
  const doc = checks.find((c) => c.name === 'doc');
  // A long document number's check data is the whole number.
  const number = (doc && doc.data.length > 9 ? doc.data : f('document_number')).replace(/<+$/, '').replace(/</g, '');
  const french = format.name === 'FRA_CNI';
  const { surname, given_names } = french ? { surname: nameParts(f('surname')), given_names: nameParts(f('given_names')) } : splitNames(f('names'));
  const sexRaw = f('sex');
  const optional = format.name === 'TD1' ? `${f('optional_data')}${f('optional_data_2')}` : f('optional_data');
  return {
    format: format.name,
    checks,
    optional_data: optional,
    result: {
      mrz_type: format.name === 'MRVA' ? 'TD3' : format.name === 'MRVB' || format.name === 'FRA_CNI' ? 'TD2' : format.name,
      layout: french ? 'FRA_CNI' : 'ICAO',
      document_code: f('document_code'),
      document_number: number,
      surname,
      given_names,
      // The code without its fillers (D<< is Germany's "D"); raw_mrz keeps the printed form.
      nationality: french ? 'FRA' : f('nationality').replace(/</g, ''),
      date_of_birth: f('date_of_birth'),
      // ICAO prints X or a filler for unspecified; the spec's value for it is '<'.
      sex: sexRaw === 'X' ? '<' : sexRaw,
      expiry_date: f('expiry_date'),
      issuing_country: f('issuing_country').replace(/</g, ''),
      raw_mrz: [...lines],
      check_digits_valid: checks.every((c) => c.valid),
    },
  };
}
