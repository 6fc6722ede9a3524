import { Type } from 'typebox';
import { NotFoundError } from '../../core/errors.js';
import { errorResponses } from '../../core/http-schemas.js';
import type { RouteScope } from '../../core/module.js';
import type { IdentityService } from './identity-service.js';
import { checkIdentityId, checkLabel, checkMetadata, checkWatchlistName } from './identity-fields.js';
import { ClusterListSchema, ClusterSchema, PromoteBodySchema, PromoteResponseSchema, PurgeStaleResponseSchema, StaleListSchema } from './schema.js';

const ClusterParams = Type.Object({ cluster_id: Type.String() });

/**
 * Vigil's own identity endpoints beside the spec's: provisional clusters of unmatched faces
 * (face_clusterer) and the re-enrolment list after a recognizer change. They live under
 * /api/v1/identity/ so they can never collide with DELETE /api/v1/watchlist/{identity_id}.
 */
export async function clusterRoutes(app: RouteScope, service: IdentityService): Promise<void> {
  app.get(
    '/api/v1/identity/clusters',
    {
      schema: {
        tags: ['identity'],
        summary: 'Provisional clusters of faces that matched nobody, largest first',
        querystring: Type.Object({ min_size: Type.Optional(Type.Integer({ minimum: 1, default: 1 })) }, { additionalProperties: false }),
        response: { 200: ClusterListSchema, ...errorResponses(400) },
      },
    },
    async (request) => ({ clusters: service.clusterer.list(request.query.min_size ?? 1) }),
  );

  app.get(
    '/api/v1/identity/clusters/:cluster_id',
    { schema: { tags: ['identity'], summary: 'One provisional cluster', params: ClusterParams, response: { 200: ClusterSchema, ...errorResponses(404) } } },
    async (request) => {
      const id = request.params.cluster_id;
      const c = service.clusterer.get(id);
      if (!c) throw new NotFoundError('CLUSTER_NOT_FOUND', `no provisional cluster "${id}"`, { cluster_id: id });
      return c;
    },
  );

  app.post(
    '/api/v1/identity/clusters/:cluster_id/promote',
    {
      schema: {
        tags: ['identity'],
        summary: "Enrol a cluster's best samples as an identity (new, or more samples for an existing identity_id)",
        params: ClusterParams,
        body: PromoteBodySchema,
        response: { 200: PromoteResponseSchema, ...errorResponses(400, 404, 409, 503) },
      },
    },
    async (request) => {
      const id = request.params.cluster_id;
      const body = request.body;
      return service.promote(id, {
        label: checkLabel(body.label),
        watchlist: checkWatchlistName(body.watchlist_name),
        identityId: checkIdentityId(body.identity_id),
        metadata: checkMetadata(body.metadata),
      });
    },
  );

  app.delete(
    '/api/v1/identity/clusters/:cluster_id',
    {
      schema: {
        tags: ['identity'],
        summary: 'Discard a provisional cluster',
        params: ClusterParams,
        response: { 200: Type.Object({ removed: Type.String() }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const id = request.params.cluster_id;
      if (!service.clusterer.remove(id)) throw new NotFoundError('CLUSTER_NOT_FOUND', `no provisional cluster "${id}"`, { cluster_id: id });
      return { removed: id };
    },
  );

  app.get(
    '/api/v1/identity/stale',
    {
      schema: {
        tags: ['identity'],
        summary: 'Identities with samples from another recognizer (to re-enrol after a recognizer change)',
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1000 })) }, { additionalProperties: false }),
        response: { 200: StaleListSchema, ...errorResponses(400, 503) },
      },
    },
    async (request) => service.staleReport(request.query.limit ?? 1000),
  );

  app.delete(
    '/api/v1/identity/stale',
    {
      schema: {
        tags: ['identity'],
        summary: 'Remove every sample made by another recognizer (identities left with none are removed)',
        response: { 200: PurgeStaleResponseSchema, ...errorResponses(503) },
      },
    },
    async () => service.purgeStale(),
  );
}
