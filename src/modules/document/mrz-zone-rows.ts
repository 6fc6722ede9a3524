/**
 * What a zone's decoded rows say about the zone before any layout is fitted: which rows can
 * be MRZ rows at all, where a row of a TD1 card shows, and which rows of a block to try as
 * the zone. Pure functions of the rows' text (the reader's geometry stays in mrz-reader).
 */

/** Rows decoding to at least this many characters are long enough to be MRZ rows on their length alone. */
export const LONG_ROW_CHARS = 20;

/** A row cut inside its padding decodes to at least this many characters (a name, a document number). */
const CUT_ROW_MIN_CHARS = 8;

/** Text that can be an MRZ row: mostly fillers, capitals and digits with at least one filler or many digits. */
export function mrzLike(text: string): boolean {
  const fillers = (text.match(/</g) ?? []).length;
  const digits = (text.match(/[0-9]/g) ?? []).length;
  return fillers >= 2 || digits >= 8;
}

/**
 * Whether a decoded row can be an MRZ row. Greedy CTC merges a run of fillers into one or a
 * few characters, and the detector often stops a row's box inside its padding, so a TD1 names
 * row (`MEINPHOOM<<<...`) or a row cut after its data decodes to far fewer characters than it
 * holds (`MEINP<<<<<<`: 11 of 30). A short row still counts when it is MRZ-like and ends in
 * fillers, as only the padding can have been lost; the layout's length is then measured from
 * geometry, not from the decoded count.
 */
export function canBeMrzRow(text: string): boolean {
  if (text.length >= LONG_ROW_CHARS) return true;
  return text.length >= CUT_ROW_MIN_CHARS && text.endsWith('<') && mrzLike(text);
}

/**
 * Which of a block's decoded rows to read as zone rows: those that can be MRZ rows (see
 * canBeMrzRow) and, beside one of those, a row that was cut before its padding with nothing
 * at its end to tell it (a TD1's first row whose box ends with the document number,
 * `I<IDNLLZ7605409`; a second row ending in its birth and expiry dates): at least
 * CUT_ROW_MIN_CHARS characters with a filler or six digits, which a line of printed words
 * does not hold.
 */
export function zoneRowsKept(texts: string[]): boolean[] {
  const sure = texts.map(canBeMrzRow);
  const block = sure.some(Boolean);
  const cutData = (t: string) => t.length >= CUT_ROW_MIN_CHARS && (t.includes('<') || (t.match(/[0-9]/g) ?? []).length >= 6);
  return texts.map((t, i) => sure[i]! || (block && cutData(t)));
}

/**
 * Whether a row reads as the second row of a TD1 card: it opens with the birth date and its
 * check digit (seven digits, one look-alike allowed). A two-line layout's first row opens with
 * the document code, a letter, so two rows whose first reads so are a TD1's lower two rows
 * with the first row missed by the detector (a 422 before, or a failing 36-character read).
 */
export function opensLikeTd1SecondRow(text: string): boolean {
  const head = text.slice(0, 7);
  if (head.length < 7) return false;
  const digits = (head.match(/[0-9]/g) ?? []).length;
  return digits >= 6 && /^[0-9]/.test(head);
}

/**
 * The sets of consecutive rows to try as the zone, most likely first. An MRZ is a document's
 * last two or three rows, so the last rows come first; then the first two, for a block whose
 * last row is not a zone row (a row read twice, offset by most of its height, at the foot of
 * a sloped zone; a line of text printed under the zone), unless the rows measure a TD1's 30
 * characters (`td1Wide`): then the first two are a TD1's upper rows, no two-line zone.
 */
export function zoneRowSets<T>(rows: T[], td1Wide = false): T[][] {
  if (rows.length < 3) return [rows];
  const sets = [rows.slice(-3), rows.slice(-2)];
  if (rows.length === 3 && !td1Wide) sets.push(rows.slice(0, 2));
  return sets;
}
