import type { ChallengeType } from './challenges.js';
import type { FailureReason, LivenessSession } from './session.js';

/**
 * The `data` of liveness_passed and liveness_failed (the spec leaves it open). Both carry
 * the same fields; `reason`, `failed_challenge` and `score` are null on liveness_passed.
 */
export interface LivenessEventData {
  [key: string]: unknown;
  session_id: string;
  /** The session's challenge types, in order. */
  challenges: ChallengeType[];
  /** The ones passed before the session ended. */
  passed_challenges: ChallengeType[];
  /** One of FAILURE_REASONS (docs/liveness.md), null on liveness_passed. */
  reason: FailureReason | null;
  /** The challenge that was current when the session failed. */
  failed_challenge: ChallengeType | null;
  /** face_changed: similarity to the first frame; spoof_detected: passive-liveness score. */
  score: number | null;
  /** Frames accepted for judging. */
  frames: number;
  /** From creation to the end, in seconds. */
  duration_seconds: number;
  /** Address the session was created from (the abuse limits count per address). */
  client_address: string;
}

export function livenessEventData(s: LivenessSession): LivenessEventData {
  const end = s.endedAt ?? s.createdAt;
  return {
    session_id: s.id,
    challenges: s.challenges.map((c) => c.type),
    passed_challenges: s.passedChallenges,
    reason: s.failure?.reason ?? null,
    failed_challenge: s.failure?.challenge ?? null,
    score: s.failure?.score === undefined || s.failure.score === null ? null : Math.round(s.failure.score * 10000) / 10000,
    frames: s.frames,
    duration_seconds: Math.round((end - s.createdAt) / 10) / 100,
    client_address: s.client,
  };
}
