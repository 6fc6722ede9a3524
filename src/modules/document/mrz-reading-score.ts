import type { ParsedMrz } from './mrz-parser.js';
import type { MrzReading } from './mrz-reader.js';

/**
 * Whether a parse can be a real zone rather than other text forced into the
 * layout (check digits alone prove little once repair may change characters):
 * an ICAO document letter, real calendar dates, and fillers where every ICAO layout has some.
 */
export function plausible(p: ParsedMrz): boolean {
  const r = p.result;
  const date = (d: string) => /^\d{6}$/.test(d) && +d.slice(2, 4) >= 1 && +d.slice(2, 4) <= 12 && +d.slice(4, 6) >= 1 && +d.slice(4, 6) <= 31;
  const fillers = r.raw_mrz.join('').split('<').length - 1;
  // The names separator `<<` is the one pair of fillers every ICAO layout holds: long names and
  // filled optional data can leave no other (a TD2 card read right was refused at 3).
  if (r.layout === 'ICAO') return 'PIACV'.includes(r.document_code[0] ?? '') && date(r.date_of_birth) && date(r.expiry_date) && fillers >= 2;
  // A French identity card (picked by IDFRA and its structure) holds no expiry date, and a
  // surname and given names that fill their fields leave it no filler at all.
  return date(r.date_of_birth) && r.expiry_date === '';
}

/**
 * How two readings of a zone compare, the reader's row sets and the service's passes alike:
 * the share of check digits that hold first, then confidence.
 */
export function mrzScore(r: MrzReading): number {
  return r.parsed.checks.filter((c) => c.valid).length / Math.max(1, r.parsed.checks.length) + 0.01 * r.confidence;
}
