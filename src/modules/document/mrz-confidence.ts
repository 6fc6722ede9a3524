import { MRZ_COUNTRY_CODES } from './mrz-countries.js';
import { classAllows, MRZ_ALPHABET, type CharClass, type FormatDef, type Span } from './mrz-format.js';
import { EXPIRY_NOT_IN_MRZ, type CheckOutcome } from './mrz-parser.js';
import type { SlotDist } from './mrz-repair.js';

/** Per-field certainty of an MRZ reading (beyond the spec: names carry no check digit). */
export interface MrzConfidence {
  /** Every field the layout prints (a FRA_CNI prints no expiry date: none for it). */
  field_confidence: Partial<Record<ConfidenceField, number>>;
  warnings: string[];
}

export const CONFIDENCE_FIELDS = ['document_code', 'issuing_country', 'document_number', 'surname', 'given_names', 'nationality', 'date_of_birth', 'sex', 'expiry_date'] as const;
export type ConfidenceField = (typeof CONFIDENCE_FIELDS)[number];

/**
 * Below this certainty (p / (p + runner-up), so 0.8 means four times as likely as any
 * other character) a character of a field makes the field "uncertain". The same
 * value decides when the reader takes extra passes for the names.
 */
export const UNCERTAIN_BELOW = 0.8;

/**
 * Given names read as none at all are uncertain below this certainty instead (the field's
 * least sure cell, padding included). A one-letter given name read as a filler (`K<<` as `<<<`)
 * wipes the whole field on one cell, no check digit covers it, and the rest reads as a document
 * without given names: on a card tilted on a table the recogniser put its K at 0.91 against the
 * filler, and the read came back valid with no warning.
 */
const NO_GIVEN_NAMES_UNCERTAIN_BELOW = 0.97;

/** p / (p + runner-up) of a position's most probable character, any character competing. */
export function topCertainty(d: SlotDist): number {
  let p1 = 0;
  let p2 = 0;
  for (const v of d) {
    if (v > p1) {
      p2 = p1;
      p1 = v;
    } else if (v > p2) p2 = v;
  }
  return p1 + p2 > 0 ? p1 / (p1 + p2) : 0;
}

/**
 * p / (p + strongest rival) of character `c` in `d`, only characters the position's class
 * admits competing: in a name a 0 is no rival to an O (repair never picks it), in a date an O
 * is none to a 0.
 */
function certaintyOf(d: SlotDist, c: string, cls: CharClass | undefined): number {
  const k = MRZ_ALPHABET.indexOf(c);
  const p = d[k] ?? 0;
  let other = 0;
  for (let j = 0; j < d.length; j++) if (j !== k && (!cls || classAllows(cls, MRZ_ALPHABET[j]!))) other = Math.max(other, d[j]!);
  return p + other > 0 ? p / (p + other) : 0;
}

/** The most probable character of `d` that the class admits. */
function topInClass(d: SlotDist, cls: CharClass | undefined): string {
  let best = -1;
  for (let j = 0; j < d.length; j++) if ((!cls || classAllows(cls, MRZ_ALPHABET[j]!)) && (best < 0 || d[j]! > d[best]!)) best = j;
  return MRZ_ALPHABET[best]!;
}

/** Per line, the positions some check digit covers (its data or the digit itself). */
function checkedPositions(format: FormatDef): Set<number>[] {
  const out = Array.from({ length: format.lines }, () => new Set<number>());
  for (const check of format.checks) {
    for (const sp of check.data) for (let p = sp.start; p < sp.end; p++) out[sp.line]!.add(p);
    out[check.digit.line]!.add(check.digit.pos);
  }
  return out;
}

const CHECK_FIELD: Record<CheckOutcome['name'], string> = {
  doc: 'document_number_check_failed',
  dob: 'date_of_birth_check_failed',
  exp: 'expiry_date_check_failed',
  pers: 'optional_data_check_failed',
  comp: 'composite_check_failed',
};

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * The surname's and given names' spans in an ICAO names field: the surname runs to its
 * separator (included: a misread separator moves the split); the given names take the rest
 * of the field, padding included (a letter lost into the padding shows there).
 */
function namesParts(names: Span, lines: string[]): { surname: Span; given: Span } {
  const text = (lines[names.line] ?? '').slice(names.start, names.end);
  const sep = text.replace(/<+$/, '').indexOf('<<');
  const cut = sep < 0 ? names.end : names.start + sep + 2;
  return { surname: { line: names.line, start: names.start, end: cut }, given: { line: names.line, start: sep < 0 ? names.start : cut, end: names.end } };
}

/**
 * The lowest certainty of any character of each field (the fused per-position
 * distributions, for the character finally chosen), and the warnings an
 * integrator should act on: uncertain unchecked fields, failing checks, country codes
 * that are on no list (returned as printed, never replaced).
 */
export function mrzConfidence(format: FormatDef, slots: SlotDist[][], lines: string[], checks: CheckOutcome[], recognised?: SlotDist[][]): MrzConfidence {
  const checked = checkedPositions(format);
  // A character's certainty is its probability against the strongest alternative,
  // p / (p + runner-up): the per-position distributions also hold the tails of the
  // neighbouring glyphs (a run of fillers read as one CTC step spreads over its
  // cells), which lower p without making the character doubtful.
  const prob = (li: number, pos: number) => {
    const c = lines[li]?.[pos];
    const d = slots[li]?.[pos];
    if (c === undefined || !d) return 0;
    const cls = format.classes[li]?.[pos];
    const sure = certaintyOf(d, c, cls);
    // The glyph templates overturned a character the recogniser read surely, in a field no check
    // digit covers: two readers disagree and nothing settles it (a Liberation Mono D, read
    // right, taken for an OCR-B 0 in a card's document code). As certain as the recogniser
    // found the character kept.
    const r = recognised?.[li]?.[pos];
    if (!r || checked[li]?.has(pos)) return sure;
    const top = topInClass(r, cls);
    if (top === c || certaintyOf(r, top, cls) < UNCERTAIN_BELOW) return sure;
    return Math.min(sure, certaintyOf(r, c, cls));
  };
  const minOver = (spans: Span[]) => {
    let m = 1;
    for (const sp of spans) for (let p = sp.start; p < sp.end; p++) m = Math.min(m, prob(sp.line, p));
    return r3(m);
  };
  const f = format.fields;
  const { surname, given } = f.names ? namesParts(f.names, lines) : { surname: f.surname!, given: f.given_names! };
  const field_confidence: Partial<Record<ConfidenceField, number>> = {
    document_code: minOver([f.document_code!]),
    issuing_country: minOver([f.issuing_country!]),
    document_number: minOver([f.document_number!]),
    surname: minOver([surname]),
    given_names: minOver([given]),
    // A FRA_CNI prints no nationality: it is the issuing country's, as sure as that was read.
    nationality: minOver([f.nationality ?? f.issuing_country!]),
    date_of_birth: minOver([f.date_of_birth!]),
    sex: minOver([f.sex!]),
  };
  if (f.expiry_date) field_confidence.expiry_date = minOver([f.expiry_date]);
  const warnings: string[] = [];
  // No given names: an ICAO names field with no separator before its padding (its given-names
  // span is then the whole field), a separate given-names field of fillers only.
  const text = (sp: Span) => (lines[sp.line] ?? '').slice(sp.start, sp.end);
  const noGivenNames = f.names ? !text(f.names).replace(/<+$/, '').includes('<<') : text(given).replace(/</g, '') === '';
  const below = (field: ConfidenceField) => (field === 'given_names' && noGivenNames ? NO_GIVEN_NAMES_UNCERTAIN_BELOW : UNCERTAIN_BELOW);
  // Checked fields too: a check digit catches one misread, but not an O read as 0 plus
  // another misread whose weights cancel it, nor a check "repaired" into holding.
  for (const field of CONFIDENCE_FIELDS) if ((field_confidence[field] ?? 1) < below(field)) warnings.push(`${field}_uncertain`);
  for (const c of checks) if (!c.valid) warnings.push(CHECK_FIELD[c.name]);
  for (const field of ['issuing_country', 'nationality'] as const) {
    const sp = f[field];
    if (!sp) continue;
    const code = (lines[sp.line] ?? '').slice(sp.start, sp.end);
    if (!MRZ_COUNTRY_CODES.has(code)) warnings.push(`${field}_unlisted`);
  }
  if (!f.expiry_date) warnings.push(EXPIRY_NOT_IN_MRZ);
  return { field_confidence, warnings };
}
