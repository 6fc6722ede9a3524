import { Type } from 'typebox';
import { literalUnion } from '../../core/literal-union.js';
import { CHALLENGE_TYPES } from './challenges.js';
import { FAILURE_REASONS } from './session.js';

/** Bounds of the per-session overrides (the config section has the same ones). */
export const TIMEOUT_BOUNDS = { minimum: 0.5, maximum: 60 } as const;

const ChallengeTypeSchema = literalUnion(CHALLENGE_TYPES, {
  description: "TURN_LEFT and TURN_RIGHT are the user's own left and right (see docs/liveness.md)",
});
// Spelled out (not mapped over a plain array) so the static type keeps the literals instead of `never`.
export const SessionStateSchema = Type.Union([Type.Literal('pending'), Type.Literal('in_progress'), Type.Literal('completed'), Type.Literal('failed'), Type.Literal('expired')], {
  description: 'Session state',
});
const isoOrNull = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const ChallengeSchema = Type.Object(
  {
    type: ChallengeTypeSchema,
    instruction: Type.String({ description: 'Human-readable instruction, e.g. "turn head left"' }),
    timeout_seconds: Type.Number({ description: 'Time allowed for this challenge, from the frame that starts it' }),
  },
  { additionalProperties: false },
);

export const CreateQuerySchema = Type.Object(
  {
    num_challenges: Type.Optional(Type.Integer({ minimum: 1, maximum: 7, description: 'Challenges drawn without repeats (default liveness.num_challenges, 3)' })),
    timeout_seconds: Type.Optional(Type.Number({ ...TIMEOUT_BOUNDS, description: 'Seconds per challenge (default liveness.timeout_seconds, 5.0)' })),
  },
  { additionalProperties: false },
);

export const SessionParamsSchema = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

export const CreateResponseSchema = Type.Object({ session_id: Type.String(), challenges: Type.Array(ChallengeSchema) }, { additionalProperties: false });

/** The spec's liveness frame result: exactly these eight fields. */
export const FrameResultSchema = Type.Object(
  {
    session_id: Type.String(),
    challenge_type: Type.Union([ChallengeTypeSchema, Type.Null()], { description: 'The challenge this frame was judged against' }),
    passed: Type.Boolean({ description: 'Whether this frame completed that challenge' }),
    confidence: Type.Number({ minimum: 0, maximum: 1, description: 'Coarse on purpose: 1 when this frame completed the challenge, 0 otherwise (a graded score would be a gradient to climb)' }),
    challenges_remaining: Type.Integer({ minimum: 0 }),
    session_complete: Type.Boolean({ description: 'True when every challenge has passed (state completed)' }),
    is_live: Type.Union([Type.Boolean(), Type.Null()], { description: 'null while the session runs; true when completed, false when failed' }),
    state: SessionStateSchema,
  },
  { additionalProperties: false },
);

export const SessionInfoSchema = Type.Object(
  {
    session_id: Type.String(),
    challenges: Type.Array(ChallengeSchema),
    state: SessionStateSchema,
    current_challenge: Type.Union([ChallengeTypeSchema, Type.Null()], { description: 'null once the session has ended' }),
    challenges_remaining: Type.Integer({ minimum: 0 }),
    passed_challenges: Type.Array(ChallengeTypeSchema),
    session_complete: Type.Boolean(),
    is_live: Type.Union([Type.Boolean(), Type.Null()]),
    liveness_score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: 'null while the session runs; 0 when it failed or expired; when completed, the mean passive-liveness score of its frames in steps of 0.1 (docs/liveness.md)',
    }),
    failure_reason: Type.Union([...literalUnion(FAILURE_REASONS).anyOf, Type.Null()], {
      description: 'Which check failed the session (docs/liveness.md lists them); null unless failed',
    }),
    frames_received: Type.Integer({ minimum: 0, description: 'Frames accepted for judging' }),
    created_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({ format: 'date-time', description: 'created_at + liveness.session_ttl: the session is expired from then on, whatever its state' }),
    challenge_started_at: isoOrNull("When the current challenge's timer started (the first frame for challenge 1, the frame that passed the previous challenge otherwise); null unless in_progress"),
    challenge_deadline: isoOrNull('challenge_started_at + timeout_seconds: the session fails (challenge_timeout) if the challenge has not passed by then'),
    ended_at: isoOrNull('When the session completed, failed (for a timeout: the deadline) or expired'),
  },
  { additionalProperties: false },
);

export const CancelResponseSchema = Type.Object({ cancelled: Type.String() }, { additionalProperties: false });
