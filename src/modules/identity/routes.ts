import { Type } from 'typebox';
import { decodeImage } from '../../core/image-decode.js';
import { errorResponses, multipartDoc } from '../../core/http-schemas.js';
import type { RouteScope } from '../../core/module.js';
import { numberField, optionalString, readMultipart, requireFile, type MultipartForm } from '../../core/multipart-form.js';
import type { IdentityService } from './identity-service.js';
import { checkWatchlistName, enrollFields } from './identity-fields.js';
import {
  DeleteIdentityResponseSchema,
  EnrollResponseSchema,
  IdentifyResponseSchema,
  TrackResponseSchema,
  WatchlistListSchema,
  WatchlistMembersSchema,
  WatchlistPageQuerySchema,
  WatchlistParamsSchema,
} from './schema.js';

export const MAX_TOP_K = 100;
const TRACK_FIELDS = ['image1', 'image2', 'image3', 'image4'];

/** top_k and threshold of identify-like requests, with the spec's defaults. */
function searchFields(form: MultipartForm) {
  return {
    watchlist: checkWatchlistName(optionalString(form, 'watchlist_name')),
    topK: numberField(form, 'top_k', { default: 5, min: 1, max: MAX_TOP_K, integer: true }),
    threshold: numberField(form, 'threshold', { default: 0.4, min: 0, max: 1 }),
  };
}

const searchDoc = [
  { name: 'watchlist_name', description: 'Watchlist to search (default "default")' },
  { name: 'top_k', type: 'integer' as const, description: `Most matches returned, 1-${MAX_TOP_K} (default 5)` },
  { name: 'threshold', type: 'number' as const, description: 'Calibrated similarity in [0, 1], same scale as /verify (default 0.4)' },
];

/** The spec's watchlist endpoints, plus POST /identify/track (identity_resolver). */
export async function identityRoutes(app: RouteScope, service: IdentityService): Promise<void> {
  const maxPixels = app.vigil.config.server.max_image_pixels;

  app.post(
    '/api/v1/watchlist/enroll',
    {
      schema: {
        tags: ['identity'],
        summary: 'Enrol the largest face of an image; an existing identity_id gets one more sample',
        consumes: ['multipart/form-data'],
        response: { 200: EnrollResponseSchema, ...errorResponses(400, 409, 413, 415, 422, 503) },
      },
      config: {
        multipartDoc: multipartDoc([
          { name: 'image', file: true, required: true, description: 'Image' },
          { name: 'label', required: true, description: 'Display name of the person (1-256 characters)' },
          { name: 'watchlist_name', description: 'Watchlist to enrol into (default "default"; created on first enrolment)' },
          { name: 'identity_id', description: 'Existing id to add a sample to, or a new id; generated (UUID) when omitted' },
          { name: 'metadata', description: 'JSON object stored with the identity and returned in matches' },
        ]),
      },
    },
    async (request) => {
      const form = await readMultipart(request);
      const file = requireFile(form, 'image');
      const fields = enrollFields(form);
      const image = await decodeImage(file, { field: 'image', maxPixels });
      return service.enroll({ image, ...fields });
    },
  );

  app.post(
    '/api/v1/identify',
    {
      schema: {
        tags: ['identity'],
        summary: 'Identify the largest face of an image against a watchlist (1:N)',
        consumes: ['multipart/form-data'],
        response: { 200: IdentifyResponseSchema, ...errorResponses(400, 404, 413, 415, 422, 503) },
      },
      config: { multipartDoc: multipartDoc([{ name: 'image', file: true, required: true, description: 'Image' }, ...searchDoc]) },
    },
    async (request) => {
      const form = await readMultipart(request);
      const file = requireFile(form, 'image');
      const fields = searchFields(form);
      service.assertWatchlist(fields.watchlist);
      const image = await decodeImage(file, { field: 'image', maxPixels });
      return service.identify({ image, ...fields });
    },
  );

  app.post(
    '/api/v1/identify/track',
    {
      schema: {
        tags: ['identity'],
        summary: 'One decision from up to four images of the same person (identity_resolver)',
        consumes: ['multipart/form-data'],
        response: { 200: TrackResponseSchema, ...errorResponses(400, 404, 413, 415, 422, 503) },
      },
      config: {
        multipartDoc: multipartDoc([
          { name: 'image1', file: true, required: true, description: 'Image' },
          ...TRACK_FIELDS.slice(1).map((name) => ({ name, file: true, description: 'Further image of the same person' })),
          ...searchDoc,
        ]),
      },
    },
    async (request) => {
      const form = await readMultipart(request);
      requireFile(form, 'image1');
      const fields = TRACK_FIELDS.filter((f) => form.files.has(f));
      const search = searchFields(form);
      service.assertWatchlist(search.watchlist);
      const images = await Promise.all(fields.map((field) => decodeImage(form.files.get(field)!, { field, maxPixels })));
      return service.resolveTrack({ images, fields, ...search });
    },
  );

  app.delete(
    '/api/v1/watchlist/:identity_id',
    {
      schema: {
        tags: ['identity'],
        summary: 'Remove an identity and all its samples from storage and index',
        params: Type.Object({ identity_id: Type.String() }),
        response: { 200: DeleteIdentityResponseSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => service.remove(request.params.identity_id),
  );

  app.get(
    '/api/v1/watchlist',
    {
      schema: {
        tags: ['identity'],
        summary: 'Every watchlist with its exact size ("default" always exists)',
        response: { 200: WatchlistListSchema, ...errorResponses(503) },
      },
    },
    async () => ({ watchlists: service.list() }),
  );

  app.get(
    '/api/v1/watchlist/:watchlist_name',
    {
      schema: {
        tags: ['identity'],
        summary: 'The identities of one watchlist (labels, ids, sample counts, enrolment time), paginated; 404 for an unknown watchlist',
        params: WatchlistParamsSchema,
        querystring: WatchlistPageQuerySchema,
        response: { 200: WatchlistMembersSchema, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      const name = checkWatchlistName(request.params.watchlist_name, 'watchlist_name');
      const { offset, limit } = request.query;
      const page = service.members(name, offset, limit);
      return {
        name,
        total: page.total,
        offset,
        limit,
        identities: page.identities.map((r) => ({
          identity_id: r.identity_id,
          label: r.label,
          samples: r.samples,
          metadata: r.metadata,
          enrolled_at: r.created_at,
          updated_at: r.updated_at,
        })),
      };
    },
  );
}
