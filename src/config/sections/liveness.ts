import { Type } from 'typebox';

export const LivenessSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Serve active liveness sessions.' }),
    session_ttl: Type.Integer({ default: 300, minimum: 1, description: 'Seconds a session lives before it expires.' }),
    num_challenges: Type.Integer({ default: 3, minimum: 1, maximum: 7, description: 'Default challenges per session.' }),
    timeout_seconds: Type.Number({ default: 5.0, exclusiveMinimum: 0, description: 'Default time allowed per challenge, in seconds.' }),
  },
  { additionalProperties: false, default: {} },
);
