import { Type, type TSchema } from 'typebox';
import { ACCEPTED_IMAGE_TEXT } from './image-decode.js';

/** The one error body of every 4xx/5xx. Extra fields (field, state, ...) may follow. */
export const ErrorBodySchema = Type.Object(
  {
    statusCode: Type.Integer(),
    code: Type.String({ description: 'Stable upper-case error code, e.g. NO_FACE, INVALID_IMAGE' }),
    error: Type.String({ description: 'HTTP reason phrase' }),
    message: Type.String(),
  },
  { additionalProperties: true, $id: 'ErrorBody' },
);

/** Standard error responses, referenced by every route's schema so /docs lists them. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = Type.Ref('ErrorBody');
  return out;
}

export interface MultipartField {
  name: string;
  file?: boolean;
  required?: boolean;
  type?: 'string' | 'number' | 'integer';
  description: string;
}

/**
 * Multipart bodies are read by readMultipart, not by fastify's validator, so their
 * fields are described for the OpenAPI document only, through route config that
 * the swagger transform in app.ts reads.
 */
export function multipartDoc(fields: MultipartField[]) {
  return {
    type: 'object',
    required: fields.filter((f) => f.required).map((f) => f.name),
    properties: Object.fromEntries(
      fields.map((f) => [f.name, f.file ? { type: 'string', format: 'binary', description: `${f.description}: ${ACCEPTED_IMAGE_TEXT}` } : { type: f.type ?? 'string', description: f.description }]),
    ),
  };
}
