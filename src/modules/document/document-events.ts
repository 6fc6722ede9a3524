import type { ParsedMrzResult } from './mrz-parser.js';

/**
 * The `data` of a document_scanned event (the spec leaves it open). It travels to
 * the event history, webhooks and MQTT, so it carries no personal data: no
 * names, document number, birth date, nationality or text, only what a building
 * system acts on.
 */
export interface DocumentScannedData {
  [key: string]: unknown;
  /** A document outline or MRZ was found. */
  detected: boolean;
  has_face: boolean;
  has_mrz: boolean;
  /** TD1, TD2 or TD3, null without an MRZ. */
  mrz_type: string | null;
  /** First letter of the document code: P passport, I/A/C identity cards, V visa; null without an MRZ. */
  document_kind: string | null;
  issuing_country: string | null;
  check_digits_valid: boolean | null;
  /** Expiry date before the day of the scan (UTC); null without an MRZ or with an unreadable date. */
  expired: boolean | null;
  ocr_lines: number;
}

/** YYMMDD expiry -> whether it lies before `today`. Expiry years are read as 20YY (documents last at most ~10 years). */
export function isExpired(yymmdd: string, today: Date): boolean | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  const year = 2000 + Number(yymmdd.slice(0, 2));
  const month = Number(yymmdd.slice(2, 4));
  const day = Number(yymmdd.slice(4, 6));
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const expiry = Date.UTC(year, month - 1, day);
  const start = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return expiry < start;
}

export function documentScannedData(scan: { detected: boolean; has_face: boolean; mrz: ParsedMrzResult | null; ocrLines: number }, today = new Date()): DocumentScannedData {
  const m = scan.mrz;
  return {
    detected: scan.detected,
    has_face: scan.has_face,
    has_mrz: m !== null,
    mrz_type: m?.mrz_type ?? null,
    document_kind: m ? m.document_code.slice(0, 1) : null,
    issuing_country: m?.issuing_country ?? null,
    check_digits_valid: m?.check_digits_valid ?? null,
    expired: m ? isExpired(m.expiry_date, today) : null,
    ocr_lines: scan.ocrLines,
  };
}
