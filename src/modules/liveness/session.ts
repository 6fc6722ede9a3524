import { ConflictError } from '../../core/errors.js';
import type { Challenge, ChallengeType } from './challenges.js';
import { judgeFrame, newProgress, seedBaseline, type ChallengeProgress, type FaceMeasures, type Judgement, type RuleSettings } from './challenge-rules.js';

/** The spec's five session states. */
export type SessionState = 'pending' | 'in_progress' | 'completed' | 'failed' | 'expired';

/** Why a session failed definitively (events and GET carry it). */
export type FailureReason = 'challenge_timeout' | 'spoof_detected' | 'face_changed';

/** The spec's liveness frame result, exactly these fields. */
export interface FrameResult {
  session_id: string;
  challenge_type: ChallengeType | null;
  passed: boolean;
  confidence: number;
  challenges_remaining: number;
  session_complete: boolean;
  is_live: boolean | null;
  state: SessionState;
}

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
      this.fail({ reason: 'challenge_timeout', challenge: this.currentChallenge?.type ?? null, score: null }, deadline);
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
  judge(measures: FaceMeasures, settings: RuleSettings, now: number): Judgement {
    const challenge = this.currentChallenge;
    if (this.state !== 'in_progress' || !challenge) return { passed: false, confidence: 0 };
    const j = judgeFrame(challenge.type, this.progress, measures, settings);
    if (!j.passed) return j;
    this.current++;
    this.progress = newProgress();
    const next = this.currentChallenge;
    if (next) {
      this.challengeStartedAt = now;
      seedBaseline(next.type, this.progress, measures);
    } else {
      this.state = 'completed';
      this.isLive = true;
      this.endedAt = now;
      this.challengeStartedAt = null;
    }
    return j;
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
