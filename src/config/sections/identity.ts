import { Type } from 'typebox';

export const IdentitySection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Serve watchlists and 1:N identification.' }),
    watchlist_dir: Type.String({ default: '', description: 'Folder of the watchlist database (LMDB); empty means <data_dir>/watchlists.' }),
    cluster_threshold: Type.Number({
      default: 0.6,
      minimum: 0,
      maximum: 1,
      description: 'Calibrated similarity at which a face that matched nobody joins a provisional cluster.',
    }),
    alert_threshold: Type.Number({
      default: 0.5,
      minimum: 0,
      maximum: 1,
      description: 'Calibrated similarity at which a match also raises watchlist_alert (every match raises face_matched).',
    }),
    alert_thresholds: Type.Record(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' }), Type.Number({ minimum: 0, maximum: 1 }), {
      default: {},
      additionalProperties: false,
      description: 'Per-watchlist alert thresholds overriding alert_threshold, e.g. {"vip": 0.45} (YAML, or JSON in the environment).',
    }),
    enforce_quality: Type.Boolean({
      default: true,
      description: 'Reject enrolment (422 LOW_QUALITY) of a face below face.quality_gate when face.enable_quality is on.',
    }),
    exact_search_max: Type.Integer({
      default: 10000,
      minimum: 0,
      description: 'Galleries up to this many samples are scanned exactly in float32; larger ones in int8 with exact re-ranking (docs/benchmarks.md).',
    }),
    rerank_candidates: Type.Integer({
      default: 64,
      minimum: 1,
      maximum: 10000,
      description: 'Samples re-scored exactly after an int8 scan (at least 4 x top_k are).',
    }),
    cluster_unmatched: Type.Boolean({ default: true, description: 'Cluster faces that matched nobody into provisional clusters (face_clusterer).' }),
    max_clusters: Type.Integer({ default: 1000, minimum: 1, description: 'Provisional clusters kept in memory; the least recently seen is dropped first.' }),
    cluster_samples: Type.Integer({ default: 5, minimum: 1, maximum: 50, description: 'Best-quality embeddings a cluster keeps for promotion to an identity.' }),
  },
  { additionalProperties: false, default: {} },
);
