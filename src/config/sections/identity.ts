import { Type } from 'typebox';

export const IdentitySection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Serve watchlists and 1:N identification.' }),
    watchlist_dir: Type.String({ default: '', description: 'Folder of the watchlist database; empty means <data_dir>/watchlists.' }),
    cluster_threshold: Type.Number({ default: 0.6, minimum: 0, maximum: 1, description: 'Similarity at which unmatched faces join a provisional cluster.' }),
  },
  { additionalProperties: false, default: {} },
);
