import type { FastifyRequest } from 'fastify';
import { AppError, BadRequestError } from './errors.js';

/** Largest multipart text field (labels, ids, thresholds); app.ts gives it to @fastify/multipart. */
export const MAX_TEXT_FIELD_BYTES = 64 * 1024;

/** A multipart request read whole: file fields as bytes, text fields as strings. */
export interface MultipartForm {
  files: Map<string, Buffer>;
  fields: Map<string, string>;
}

/**
 * Reads every part of a multipart request. Byte and count limits are enforced by
 * @fastify/multipart (registered in app.ts) and surface as 413s through the error handler.
 */
export async function readMultipart(request: FastifyRequest): Promise<MultipartForm> {
  if (!request.isMultipart()) {
    throw new BadRequestError('NOT_MULTIPART', 'expected a multipart/form-data request');
  }
  const form: MultipartForm = { files: new Map(), fields: new Map() };
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const bytes = await part.toBuffer();
      form.files.set(part.fieldname, bytes);
    } else {
      // busboy cuts a text field at fieldSize and only flags it: a cut label or id would be
      // stored as if the client had sent it, so refuse it instead.
      if (part.valueTruncated || part.fieldnameTruncated) {
        throw new AppError(413, 'FIELD_TOO_LARGE', `text field "${part.fieldname}" is longer than the ${MAX_TEXT_FIELD_BYTES} bytes accepted`, {
          field: part.fieldname,
        });
      }
      form.fields.set(part.fieldname, typeof part.value === 'string' ? part.value : String(part.value));
    }
  }
  return form;
}

export function requireFile(form: MultipartForm, field: string): Buffer {
  const file = form.files.get(field);
  if (!file) {
    const hint = form.fields.has(field) ? ' (it was sent as a text field, not a file)' : '';
    throw new BadRequestError('MISSING_FIELD', `missing file field "${field}"${hint}`, { field });
  }
  return file;
}

export function optionalString(form: MultipartForm, field: string): string | undefined {
  const v = form.fields.get(field);
  return v === undefined ? undefined : v;
}

export function requireString(form: MultipartForm, field: string): string {
  const v = form.fields.get(field);
  if (v === undefined) throw new BadRequestError('MISSING_FIELD', `missing text field "${field}"`, { field });
  if (v.trim() === '') throw new BadRequestError('INVALID_FIELD', `text field "${field}" is empty`, { field });
  return v;
}

export interface NumberFieldOptions {
  default: number;
  min?: number;
  max?: number;
  integer?: boolean;
}

/** A numeric form field with its default and range; out of range is 400 INVALID_FIELD naming the field. */
export function numberField(form: MultipartForm, field: string, opts: NumberFieldOptions): number {
  const raw = form.fields.get(field);
  if (raw === undefined || raw.trim() === '') return opts.default;
  const n = Number(raw);
  const bad = (why: string) => new BadRequestError('INVALID_FIELD', `field "${field}" ${why} (got ${JSON.stringify(raw)})`, { field });
  if (!Number.isFinite(n)) throw bad('must be a number');
  if (opts.integer && !Number.isInteger(n)) throw bad('must be an integer');
  if (opts.min !== undefined && n < opts.min) throw bad(`must be at least ${opts.min}`);
  if (opts.max !== undefined && n > opts.max) throw bad(`must be at most ${opts.max}`);
  return n;
}
