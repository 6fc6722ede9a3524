import { BadRequestError } from '../../core/errors.js';
import { optionalString, requireString, type MultipartForm } from '../../core/multipart-form.js';
import { DEFAULT_WATCHLIST } from './watchlist-store.js';

/** Names that are safe as LMDB keys, log fields and URL segments. */
const WATCHLIST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const IDENTITY_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
const MAX_LABEL = 256;
const MAX_METADATA_BYTES = 16 * 1024;

export function checkWatchlistName(value: string | undefined, field = 'watchlist_name'): string {
  if (value === undefined || value.trim() === '') return DEFAULT_WATCHLIST;
  if (!WATCHLIST_NAME.test(value)) {
    throw new BadRequestError('INVALID_FIELD', `field "${field}" must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`, { field });
  }
  return value;
}

export function checkIdentityId(value: string | undefined, field = 'identity_id'): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!IDENTITY_ID.test(value)) {
    throw new BadRequestError('INVALID_FIELD', `field "${field}" must be 1-128 letters, digits, '.', '_', ':', '@' or '-', starting with a letter or digit`, {
      field,
    });
  }
  return value;
}

export function checkLabel(value: string, field = 'label'): string {
  const label = value.trim();
  if (label === '') throw new BadRequestError('INVALID_FIELD', `text field "${field}" is empty`, { field });
  if (label.length > MAX_LABEL) throw new BadRequestError('INVALID_FIELD', `field "${field}" is longer than ${MAX_LABEL} characters`, { field });
  return label;
}

export function checkMetadata(value: unknown, field = 'metadata'): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError('INVALID_FIELD', `field "${field}" must be a JSON object`, { field });
  }
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA_BYTES) {
    throw new BadRequestError('INVALID_FIELD', `field "${field}" is larger than ${MAX_METADATA_BYTES} bytes of JSON`, { field });
  }
  return value as Record<string, unknown>;
}

/** The text fields of POST /watchlist/enroll, checked. */
export function enrollFields(form: MultipartForm) {
  const raw = optionalString(form, 'metadata');
  let metadata: unknown;
  if (raw !== undefined && raw.trim() !== '') {
    try {
      metadata = JSON.parse(raw) as unknown;
    } catch {
      throw new BadRequestError('INVALID_FIELD', 'field "metadata" is not valid JSON', { field: 'metadata' });
    }
  }
  return {
    label: checkLabel(requireString(form, 'label')),
    watchlist: checkWatchlistName(optionalString(form, 'watchlist_name')),
    identityId: checkIdentityId(optionalString(form, 'identity_id')),
    metadata: checkMetadata(metadata),
  };
}
