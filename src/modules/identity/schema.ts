import { Type } from 'typebox';
import { FaceResultSchema } from '../face/schema.js';

const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'The JSON object given at enrolment ({} when none)' });

export const MatchSchema = Type.Object(
  {
    identity_id: Type.String(),
    label: Type.String(),
    similarity: Type.Number({ minimum: 0, maximum: 1, description: "Calibrated similarity (same scale as /verify): best over the identity's samples" }),
    metadata: Metadata,
  },
  { additionalProperties: false },
);

const EnrolledFields = {
  identity_id: Type.String({ description: 'Given, or generated (UUID) when identity_id was omitted' }),
  label: Type.String(),
  watchlist: Type.String(),
  metadata: Metadata,
  samples: Type.Integer({ description: 'Face samples the identity has now; each is searched on its own (no averaging)' }),
  created: Type.Boolean({ description: 'true when this call created the identity, false when it added a sample to an existing one' }),
};

export const EnrollResponseSchema = Type.Object({ ...EnrolledFields, face: FaceResultSchema }, { additionalProperties: false });

export const IdentifyResponseSchema = Type.Object(
  { face: FaceResultSchema, matches: Type.Array(MatchSchema, { description: 'At or above threshold, best first, at most top_k' }) },
  { additionalProperties: false },
);

export const DeleteIdentityResponseSchema = Type.Object(
  {
    removed: Type.String({ description: 'The identity_id removed' }),
    watchlist: Type.String(),
    samples: Type.Integer({ description: 'Samples removed with it' }),
  },
  { additionalProperties: false },
);

export const WatchlistListSchema = Type.Object(
  {
    watchlists: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          size: Type.Integer({ description: 'Identities enrolled in the watchlist' }),
          samples: Type.Integer({ description: 'Searchable face samples (current recognizer)' }),
          stale_samples: Type.Integer({ description: 'Samples made by another recognizer: not searchable until re-enrolled' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ClusterSchema = Type.Object(
  {
    cluster_id: Type.String(),
    size: Type.Integer({ description: 'Unmatched faces that joined this cluster' }),
    first_seen: Type.String(),
    last_seen: Type.String(),
    watchlists: Type.Array(Type.String(), { description: 'Watchlists the faces were identified against' }),
    camera_ids: Type.Array(Type.String()),
    face: Type.Union([FaceResultSchema, Type.Null()], { description: 'Face result of the best-quality sample kept' }),
  },
  { additionalProperties: false },
);

export const ClusterListSchema = Type.Object({ clusters: Type.Array(ClusterSchema, { description: 'Largest first' }) }, { additionalProperties: false });

export const PromoteBodySchema = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 256 }),
    watchlist_name: Type.Optional(Type.String({ default: 'default' })),
    identity_id: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const PromoteResponseSchema = Type.Object(
  { ...EnrolledFields, cluster_id: Type.String(), promoted_samples: Type.Integer({ description: 'Embeddings of the cluster enrolled as samples' }) },
  { additionalProperties: false },
);

const ResolvedSchema = Type.Object(
  {
    identity_id: Type.String(),
    label: Type.String(),
    metadata: Metadata,
    similarity: Type.Number({ description: 'Quality-weighted mean calibrated similarity over the samples' }),
    votes: Type.Integer({ description: 'Samples in which this identity ranked first at or above threshold' }),
  },
  { additionalProperties: false },
);

export const TrackResponseSchema = Type.Object(
  {
    decision: Type.Union([ResolvedSchema, Type.Null()], { description: 'The identity the samples agree on, or null (unknown or ambiguous)' }),
    candidates: Type.Array(ResolvedSchema),
    samples: Type.Integer(),
    faces: Type.Array(FaceResultSchema, { description: 'The largest face of each image, in field order' }),
  },
  { additionalProperties: false },
);

export const StaleListSchema = Type.Object(
  {
    recognizer: Type.String({
      description: "The embedding space of the configured recognizer (its model name, or face_rec_dlib_resnet_128d+euclidean-lift for dlib's lifted descriptors); samples of any other are stale",
    }),
    stale_samples: Type.Integer(),
    stale_identities: Type.Integer(),
    identities: Type.Array(
      Type.Object(
        {
          identity_id: Type.String(),
          label: Type.String(),
          watchlist: Type.String(),
          stale_samples: Type.Integer(),
          searchable_samples: Type.Integer(),
          models: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const PurgeStaleResponseSchema = Type.Object(
  { removed_samples: Type.Integer(), removed_identities: Type.Integer({ description: 'Identities left with no sample, removed' }) },
  { additionalProperties: false },
);

export const WatchlistParamsSchema = Type.Object({ watchlist_name: Type.String({ maxLength: 64, description: 'Watchlist name' }) });

export const WatchlistPageQuerySchema = Type.Object(
  {
    offset: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0, description: 'Identities to skip (default 0)' }),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Identities per page, 1-500 (default 50)' }),
  },
  { additionalProperties: false },
);

export const WatchlistMembersSchema = Type.Object(
  {
    name: Type.String(),
    total: Type.Integer({ description: 'Identities in the watchlist' }),
    offset: Type.Integer(),
    limit: Type.Integer(),
    identities: Type.Array(
      Type.Object(
        {
          identity_id: Type.String(),
          label: Type.String(),
          samples: Type.Integer({ description: 'Face samples stored for the identity' }),
          metadata: Metadata,
          enrolled_at: Type.String({ description: 'ISO 8601 UTC time of the first enrolment' }),
          updated_at: Type.String({ description: 'ISO 8601 UTC time of the last sample or label change' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Oldest enrolment first' },
    ),
  },
  { additionalProperties: false },
);
