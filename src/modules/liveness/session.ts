import type { Static } from 'typebox';
import { ConflictError } from '../../core/errors.js';
import type { Challenge, ChallengeType } from './challenges.js';
import type { FrameResultSchema, SessionStateSchema } from './schema.js';
import {
  judgeFrame,
  newProgress,
  readsExpression,
  seedBaseline,
  UNREAD_EXPRESSION,
  type ChallengeProgress,
  type Moved,
  type FaceMeasures,
  type Judgement,
  type RuleSettings,
} from './challenge-rules.js';

/** The spec's five session states. */
export type SessionState = Static<typeof SessionStateSchema>;

/**
 * Why a session failed definitively (events and GET carry it; docs/liveness.md explains each).
 * They name the check, never its threshold.
 */
export const FAILURE_REASONS = ['challenge_timeout', 'spoof_detected', 'face_changed', 'static_image', 'capture_discontinuity', 'implausible_timing', 'frame_limit', 'flat_motion'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Frame checks whose failures are counted (liveness.max_rejected_frames) rather than ending the session at once. */
export type Rejection = 'capture_discontinuity' | 'implausible_timing';

/** The spec's liveness frame result, exactly these fields: the schema is the one definition. */
export type FrameResult = Static<typeof FrameResultSchema>;

export interface Failure {
  reason: FailureReason;
  /** Challenge that was current when the session failed. */
  challenge: ChallengeType | null;
  /** Similarity to the first frame (face_changed) or passive-liveness score (spoof_detected). */
  score: number | null;
}

/** A state change the owner reacts to (events, abuse counters). */
export type Ending = 'completed' | 'failed' | 'expired';

const ENDED: ReadonlySet<SessionState> = new Set(['completed', 'failed', 'expired']);

/**
 * One active-liveness session and its state machine, driven by explicit timestamps (ms) so
 * tests run it on an injected clock. Transitions, exactly the spec's table:
 *   (none)      create                         -> pending
 *   pending     first frame                    -> in_progress   (challenge 1's timer starts)
 *   in_progress a challenge passes, others left -> in_progress   (next challenge's timer starts)
 *   in_progress the final challenge passes     -> completed     (is_live true)
 *   in_progress timeout or definitive failure  -> failed        (is_live false)
 *   any         session_ttl elapses            -> expired
 * Each challenge's timer starts when the frame that began it arrived: the first frame for
 * challenge 1, the frame that passed challenge k for challenge k+1.
 */
export class LivenessSession {
  state: SessionState = 'pending';
  /** Index of the current challenge (== challenges.length once completed). */
  current = 0;
  challengeStartedAt: number | null = null;
  endedAt: number | null = null;
  isLive: boolean | null = null;
  failure: Failure | null = null;
  /** Frames accepted for judging (after the state check). */
  frames = 0;
  /** Embedding of the first frame's face: every later face must stay the same person. */
  reference: Float32Array | null = null;
  /** Arrival of the latest accepted frame (timing check). */
  lastArrival: number | null = null;
  /** Frames rejected by the capture checks, by reason. */
  rejected = new Map<Rejection, number>();
  /** Frames judged against the current challenge, and how many of them were still images. */
  challengeFrames = 0;
  challengeStatic = 0;
  /** Frames of the current challenge whose turn or look was read but that did not move like a head. */
  challengeFlat = 0;
  /** Passive-liveness scores of every frame (fused into liveness_score). */
  passiveScores: number[] = [];
  private progress: ChallengeProgress = newProgress();

  constructor(
    readonly id: string,
    readonly challenges: Challenge[],
    readonly createdAt: number,
    readonly expiresAt: number,
    readonly client: string,
  ) {}

  get currentChallenge(): Challenge | null {
    return this.challenges[this.current] ?? null;
  }

  get challengesRemaining(): number {
    return this.challenges.length - this.current;
  }

  get passedChallenges(): ChallengeType[] {
    return this.challenges.slice(0, this.current).map((c) => c.type);
  }

  get ended(): boolean {
    return ENDED.has(this.state);
  }

  /** When the current challenge times out, or null when no timer runs. */
  deadline(): number | null {
    const c = this.currentChallenge;
    if (this.state !== 'in_progress' || !c || this.challengeStartedAt === null) return null;
    return this.challengeStartedAt + c.timeout_seconds * 1000;
  }

  /**
   * Applies the time-driven rows: TTL (from any state) and the per-challenge timeout. The
   * timeout is dated at the deadline itself, whenever it is noticed. Returns the ending
   * this call caused, if any.
   */
  refresh(now: number): Ending | null {
    if (this.state === 'expired') return null;
    const deadline = this.deadline();
    if (deadline !== null && now >= deadline && deadline < this.expiresAt) {
      // A challenge whose frames were mostly still images timed out because it was shown a photo.
      // One whose turn or look was read only on frames that did not change like a moving head
      // (the outline stayed put) timed out because it was shown a flat picture.
      const still = this.challengeStatic > 0 && this.challengeStatic * 2 >= this.challengeFrames;
      const reason = still ? 'static_image' : this.challengeFlat > 0 ? 'flat_motion' : 'challenge_timeout';
      this.fail({ reason, challenge: this.currentChallenge?.type ?? null, score: null }, deadline);
      if (now < this.expiresAt) return 'failed';
      this.expire();
      return 'failed';
    }
    if (now >= this.expiresAt) {
      this.expire();
      return 'expired';
    }
    return null;
  }

  /** 409 SESSION_ENDED naming the state, for a frame sent to a completed, failed or expired session. */
  assertActive(): void {
    if (this.ended) {
      throw new ConflictError('SESSION_ENDED', `session ${this.id} is ${this.state}; frames are accepted only while it is pending or in_progress (create a new session to retry)`, {
        session_id: this.id,
        state: this.state,
      });
    }
  }

  /** Accepts a frame that arrived at `now`: pending -> in_progress starts challenge 1's timer. */
  acceptFrame(now: number): void {
    this.assertActive();
    this.frames++;
    this.challengeFrames++;
    if (this.state === 'pending') {
      this.state = 'in_progress';
      this.challengeStartedAt = now;
    }
  }

  /** Definitive failure (timeout, spoof, different person): in_progress -> failed. */
  fail(failure: Failure, at: number): void {
    if (this.state !== 'in_progress') return;
    this.state = 'failed';
    this.isLive = false;
    this.failure = failure;
    this.endedAt = at;
  }

  private expire(): void {
    this.state = 'expired';
    if (this.endedAt === null) this.endedAt = this.expiresAt;
  }

  /**
   * Judges one accepted frame's measures against the current challenge. A pass moves to the
   * next challenge (its timer starting at this frame's arrival) or completes the session; the
   * passing frame is also offered as the next challenge's neutral baseline.
   */
  judge(measures: FaceMeasures, settings: RuleSettings, now: number, moved: Moved = true): Judgement {
    const challenge = this.currentChallenge;
    if (this.state !== 'in_progress' || !challenge) return { passed: false, confidence: 0 };
    const j = judgeFrame(challenge.type, this.progress, measures, settings, now, moved);
    if (j.flat) this.challengeFlat++;
    if (!j.passed) return j;
    this.current++;
    this.progress = newProgress();
    this.challengeFrames = 0;
    this.challengeStatic = 0;
    this.challengeFlat = 0;
    const next = this.currentChallenge;
    if (next) {
      this.challengeStartedAt = now;
      seedBaseline(next.type, this.progress, measures, now);
    } else {
      this.state = 'completed';
      this.isLive = true;
      this.endedAt = now;
      this.challengeStartedAt = null;
    }
    return j;
  }

  /**
   * Whether judging a frame with this head pose reads its expression scores: always for an
   * expression challenge, and for a turn or look when the frame would complete it and the next
   * challenge is an expression one (the completing frame seeds that challenge's baseline).
   * Judged on a copy of the progress, so nothing changes.
   */
  readsExpression(pose: Pick<FaceMeasures, 'yaw' | 'pitch'>, settings: RuleSettings, now: number, moved: Moved): boolean {
    const challenge = this.currentChallenge;
    if (this.state !== 'in_progress' || !challenge) return false;
    if (readsExpression(challenge.type)) return true;
    const next = this.challenges[this.current + 1];
    if (!next || !readsExpression(next.type)) return false;
    return judgeFrame(challenge.type, { ...this.progress }, { ...pose, ...UNREAD_EXPRESSION }, settings, now, moved).passed;
  }

  /** Arrival time of the current challenge's baseline frame, or null before one is seen. */
  get baselineAt(): number | null {
    return this.progress.baseline ? this.progress.baselineAt : null;
  }

  /** Counts a rejected frame; true when that reaches `max` (the caller fails the session). */
  reject(why: Rejection, max: number): boolean {
    this.rejected.set(why, (this.rejected.get(why) ?? 0) + 1);
    let total = 0;
    for (const n of this.rejected.values()) total += n;
    return total >= max;
  }

  /**
   * The documented, coarse session score: null while the session runs, 0 when it failed or
   * expired, and for a completed session the mean passive-liveness score of its frames in
   * steps of 0.1 (1 when passive liveness is off).
   */
  get livenessScore(): number | null {
    if (this.state === 'completed') {
      const n = this.passiveScores.length;
      return n === 0 ? 1 : Math.round((10 * this.passiveScores.reduce((a, b) => a + b, 0)) / n) / 10;
    }
    return this.ended ? 0 : null;
  }

  /** The frame result after judging `judged` (the challenge the frame was judged against). */
  frameResult(judged: ChallengeType | null, j: Judgement): FrameResult {
    return {
      session_id: this.id,
      challenge_type: judged,
      passed: j.passed,
      confidence: j.confidence,
      challenges_remaining: this.challengesRemaining,
      session_complete: this.state === 'completed',
      is_live: this.isLive,
      state: this.state,
    };
  }
}
