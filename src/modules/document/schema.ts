import { Type, type Static } from 'typebox';
import { VerifyResponseSchema } from '../face/schema.js';

const Bbox = Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description: '[x1, y1, x2, y2] in pixels of the uploaded image (EXIF applied)' });

export const TextLineSchema = Type.Object(
  {
    text: Type.String(),
    bbox: Bbox,
    confidence: Type.Number({ minimum: 0, maximum: 1, description: 'Mean character probability of the line' }),
  },
  { additionalProperties: false },
);

export const OcrResultSchema = Type.Object(
  {
    full_text: Type.String({ description: 'All lines in reading order: lines on one row joined by a space, rows by a newline' }),
    lines: Type.Array(TextLineSchema, { description: 'Detected text lines in reading order' }),
    confidence: Type.Number({ minimum: 0, maximum: 1, description: 'Character-weighted mean of the line confidences (0 when no text)' }),
  },
  { additionalProperties: false },
);

export const MrzResultSchema = Type.Object(
  {
    mrz_type: Type.Union([Type.Literal('TD1'), Type.Literal('TD2'), Type.Literal('TD3')], {
      description: "Line layout: TD1 3x30, TD2 2x36, TD3 2x44 (machine-readable visas: MRV-A as TD3, MRV-B as TD2; see document_code; the French identity card's 2x36 zone as TD2, see layout)",
    }),
    layout: Type.Union([Type.Literal('ICAO'), Type.Literal('FRA_CNI')], {
      description:
        'Beyond the spec. Whose field layout the zone follows: ICAO (Doc 9303) or FRA_CNI, the French national identity card issued 1988-2021 (two rows of 36 that are no ICAO TD2: surname and issuing office on row 1; the 12-character card number, given names, birth date and sex on row 2). Its zone holds no nationality (FRA: the card is issued to French nationals only) and no expiry date (expiry_date is empty and warnings holds expiry_date_not_in_mrz); check_digits_valid covers its own check digits (card number, birth date, and the last digit over both rows, names included)',
    }),
    document_code: Type.String({ description: 'The two-character document code of line 1 (P< passport, I/A/C cards, V visa)' }),
    document_number: Type.String({ description: 'Without fillers; long TD1/TD2 numbers include their overflow; the 12-character card number on a FRA_CNI' }),
    surname: Type.String(),
    given_names: Type.String({ description: 'Name parts separated by single spaces' }),
    nationality: Type.String({ description: 'The code without fillers (D for Germany, printed D<<); as printed, never replaced by a listed code' }),
    date_of_birth: Type.String({ description: 'YYMMDD' }),
    sex: Type.String({ description: 'M, F or < (unspecified)' }),
    expiry_date: Type.String({ description: 'YYMMDD; empty for a layout whose zone holds none (FRA_CNI, see layout)' }),
    issuing_country: Type.String({ description: 'The code without fillers, as printed (see nationality)' }),
    raw_mrz: Type.Array(Type.String(), { description: 'The MRZ lines as read (after character repair)' }),
    check_digits_valid: Type.Boolean({ description: 'Every check digit of the layout holds, composite included' }),
    field_confidence: Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: 1 }), {
      description:
        'Beyond the spec. Per field (document_code, issuing_country, document_number, surname, given_names, nationality, date_of_birth, sex, expiry_date; no expiry_date on a FRA_CNI, whose nationality is as sure as its issuing country): the lowest probability the reader gave any of its characters. Names, codes and sex carry no check digit: a low value there is the only sign of a misread',
    }),
    warnings: Type.Array(Type.String(), {
      description:
        'Beyond the spec. <field>_uncertain (a character of the field read below 0.8), <field>_check_failed / composite_check_failed / optional_data_check_failed, nationality_unlisted / issuing_country_unlisted (a code on no ICAO/ISO list, returned as printed), format_uncertain (a two-row zone whose rows did not tell a 36- from a 44-character layout: MRV-B from MRV-A, TD2 from TD3), expiry_date_not_in_mrz (a FRA_CNI: the zone holds no expiry date, expiry_date is empty; read it from the face of the card). Empty when the reading is sure. Ask for a better photo rather than trust an uncertain name',
    }),
  },
  { additionalProperties: false },
);

export const ScanResultSchema = Type.Object(
  {
    detected: Type.Boolean({ description: 'A document was found: its outline, or a machine-readable zone' }),
    ocr: OcrResultSchema,
    mrz: Type.Union([MrzResultSchema, Type.Null()], { description: 'null when the document has no readable MRZ' }),
    has_face: Type.Boolean({ description: 'A portrait was found on the document' }),
  },
  { additionalProperties: false },
);

/** Same shape as /verify (face1 is the document face, face2 the selfie face). */
export const DocumentVerifySchema = VerifyResponseSchema;

export type OcrResult = Static<typeof OcrResultSchema>;
export type ScanResult = Static<typeof ScanResultSchema>;
export type DocumentVerifyResult = Static<typeof DocumentVerifySchema>;
