import type { Static } from 'typebox';
import type { VigilContext } from '../../core/context.js';
import { UnprocessableError } from '../../core/errors.js';
import type { ErrorCode } from '../../core/error-codes.js';
import { decodeImage } from '../../core/image-decode.js';
import { faceSize, type RawFace } from '../face/face-geometry.js';
import { emptyTimings, type FaceService } from '../face/face-service.js';
import { AbuseLimiter } from './abuse-limiter.js';
import { CAPTURE, captureProblem, identicalFraction, mirroredOf, sampleFrame, type FrameSample } from './capture-evidence.js';
import { readsExpression, UNREAD_EXPRESSION, type Expression, type RuleSettings } from './challenge-rules.js';
import { cryptoRandomIndex, drawChallenges, type Challenge, type ChallengeType, type RandomIndex } from './challenges.js';
import { greyPatch, patchStep, showsParallax, type FaceView } from './depth-parallax.js';
import { FaceMeasurer } from './face-measurer.js';
import { analyseFrameFaces, detectFrameFaces, faceBox, type FrameFace } from './face-source.js';
import { livenessEventData } from './liveness-events.js';
import { SILHOUETTE, silhouetteChange } from './silhouette.js';
import type { Ending, FailureReason, FrameResult, LivenessSession, Rejection } from './session.js';
import type { SessionInfoSchema } from './schema.js';
import { SessionStore } from './session-store.js';

/** A second face at least this fraction of the largest face's size makes a frame ambiguous. */
export const SECOND_FACE_RATIO = 0.5;

/** Injectable time and randomness: the daemon uses the wall clock and the CSPRNG; tests swap them. */
export interface LivenessDeps {
  /** Milliseconds since the epoch. */
  clock: () => number;
  random: RandomIndex;
}

/** GET /liveness/sessions/{id}: session_id and challenges (spec) plus the documented state and timing fields; the schema is the one definition. */
export type SessionInfo = Static<typeof SessionInfoSchema>;

/**
 * Passive liveness fused over frames rather than trusted on one: MiniFASNet's real-face score
 * dips to 0.43-0.6 on some frames of genuine video (the Obama clip, a near-frontal face at
 * 1280x720), while prints and screens score 0.0-0.3 on every frame. A session fails when one
 * frame scores below `frameMin` or the mean of its last `window` frames falls below `meanMin`
 * (pad/: the print scores 0.30, the screen 0.22, the tablet replay 0.00).
 */
export const PASSIVE = { window: 3, meanMin: 0.5, frameMin: 0.35 } as const;

export function passiveSpoof(scores: readonly number[]): boolean {
  const last = scores.at(-1);
  if (last === undefined) return false;
  if (last < PASSIVE.frameMin) return true;
  const recent = scores.slice(-PASSIVE.window);
  return recent.reduce((a, b) => a + b, 0) / recent.length < PASSIVE.meanMin;
}

/** Frames whose capture evidence a session keeps (the static-image check looks this far back). */
const KEPT_SAMPLES = 4;

/** Per-stage wall time of one frame (Server-Timing header, bench/liveness.ts). */
export interface FrameTimings {
  decode: number;
  /** face service: detection, embedding, passive liveness */
  face: number;
  /** of `face`: the detector's session.run */
  face_detect_model: number;
  /** of `face`: alignment crop + recognizer run, and the two MiniFASNet crops + runs */
  face_embed: number;
  face_liveness: number;
  /** landmarks + blendshapes, including the ROI warp */
  measure: number;
  /** of `measure`: the two session.run calls */
  measure_model: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Active liveness: sessions, the frame judge and the definitive checks (same person as the
 * first frame, passive liveness), events and abuse limits. Sessions live in memory.
 */
export class LivenessService {
  readonly store: SessionStore;
  readonly limiter: AbuseLimiter;
  private readonly measurer: FaceMeasurer;
  private readonly settings: RuleSettings;
  /** Capture evidence of each session's latest frames (dropped with the session). */
  private readonly samples = new WeakMap<LivenessSession, FrameSample[]>();
  /**
   * Evidence of each session's current baseline frame (what a turn or look is measured from):
   * its capture sample, and for a turn its face crop and landmarks (the depth parallax check).
   */
  private readonly baselines = new WeakMap<LivenessSession, { at: number; sample: FrameSample; view: FaceView | null }>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeps = 0;

  constructor(
    private readonly ctx: VigilContext,
    private readonly faces: FaceService,
    readonly deps: LivenessDeps = { clock: Date.now, random: cryptoRandomIndex },
  ) {
    const c = ctx.config.liveness;
    this.store = new SessionStore(c.session_ttl * 1000, c.max_sessions);
    this.limiter = new AbuseLimiter(
      ctx.config.server.data_dir,
      { windowMs: c.abuse_window_seconds * 1000, maxSessions: c.abuse_max_sessions, maxFailures: c.abuse_max_failures },
      ctx.log.child({ component: 'liveness-abuse' }),
      ctx.storage,
    );
    this.measurer = new FaceMeasurer(faces);
    this.settings = { turnDegrees: c.turn_degrees, lookDegrees: c.look_degrees, minActionMs: c.min_action_ms };
  }

  /** Starts the 1 s sweep that applies timeouts and TTL to sessions nobody is sending frames to. */
  start(): void {
    this.limiter.open();
    this.limiter.prune(this.deps.clock());
    this.sweepTimer = setInterval(() => this.sweep(), 1000);
    this.sweepTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    await this.limiter.close();
  }

  sweep(): void {
    const now = this.deps.clock();
    for (const { session, ending } of this.store.sweep(now)) this.ended(session, ending);
    // The abuse table is pruned about once a minute.
    if (++this.sweeps % 60 === 0) this.limiter.prune(now);
  }

  createSession(client: string, numChallenges?: number, timeoutSeconds?: number): { session_id: string; challenges: Challenge[] } {
    const c = this.ctx.config.liveness;
    const now = this.deps.clock();
    // The server sets the floor on strength: a client cannot ask for fewer challenges than
    // min_challenges nor for more time per challenge than max_timeout_seconds.
    const count = Math.max(numChallenges ?? c.num_challenges, c.min_challenges);
    const timeout = Math.min(timeoutSeconds ?? c.timeout_seconds, c.max_timeout_seconds);
    const challenges = drawChallenges(count, timeout, this.deps.random, c.min_head_challenges);
    this.limiter.admitSession(client, now);
    const session = this.store.create(challenges, now, client);
    return { session_id: session.id, challenges };
  }

  /** The session with time applied (a timeout or TTL noticed here ends it and emits as usual). */
  private current(id: string, now: number): LivenessSession {
    const session = this.store.get(id);
    if (!this.store.busy(id)) this.refresh(session, now);
    return session;
  }

  private refresh(session: LivenessSession, now: number): void {
    const ending = session.refresh(now);
    if (ending) this.ended(session, ending);
  }

  info(id: string): SessionInfo {
    const s = this.current(id, this.deps.clock());
    return {
      session_id: s.id,
      challenges: s.challenges,
      state: s.state,
      current_challenge: s.ended ? null : (s.currentChallenge?.type ?? null),
      challenges_remaining: s.challengesRemaining,
      passed_challenges: s.passedChallenges,
      session_complete: s.isLive === true,
      is_live: s.isLive,
      liveness_score: s.livenessScore,
      failure_reason: s.failure?.reason ?? null,
      frames_received: s.frames,
      created_at: iso(s.createdAt)!,
      expires_at: iso(s.expiresAt)!,
      challenge_started_at: s.state === 'in_progress' ? iso(s.challengeStartedAt) : null,
      challenge_deadline: iso(s.deadline()),
      ended_at: iso(s.endedAt),
    };
  }

  /** DELETE: forgets the session; one abandoned after its first frame counts as a failure for abuse limits. */
  cancel(id: string): { cancelled: string } {
    const session = this.store.delete(id);
    if (session.state === 'in_progress') this.limiter.recordFailure(session.client, this.deps.clock());
    return { cancelled: id };
  }

  /**
   * Judges one frame that arrived at `arrivedAt`. Order: state (404/409), image decoding
   * (400/413/415, no state change), then, one frame at a time per session: pending ->
   * in_progress, face detection (422 NO_FACE / MULTIPLE_FACES), passive liveness and the
   * same-person check (definitive failures), landmarks (422 FACE_NOT_MEASURABLE), the challenge.
   */
  async submitFrame(id: string, image: Buffer, arrivedAt: number, timings: FrameTimings = emptyFrameTimings()): Promise<FrameResult> {
    // Queued from arrival on, so the sweep leaves the session to this frame's arrival time.
    return this.store.exclusive(id, async () => {
      const session = this.store.get(id);
      this.refresh(session, arrivedAt);
      session.assertActive();
      let t0 = performance.now();
      const img = await decodeImage(image, { field: 'image', maxPixels: this.ctx.config.server.max_image_pixels });
      timings.decode = performance.now() - t0;
      this.assertHeld(id);
      session.acceptFrame(arrivedAt);
      const judged = session.currentChallenge!.type;
      const cfg = this.ctx.config.liveness;
      const previous = session.lastArrival;
      session.lastArrival = arrivedAt;
      if (session.challengeFrames > cfg.max_frames_per_challenge) {
        return this.failNow(session, 'frame_limit', arrivedAt);
      }
      if (previous !== null && arrivedAt - previous < cfg.min_frame_interval_ms) {
        return this.rejectFrame(session, 'implausible_timing', arrivedAt);
      }
      t0 = performance.now();
      const stage = emptyTimings();
      const detected = await detectFrameFaces(this.faces, img, stage);
      this.assertHeld(id);
      // One face or a 422, decided on the detections: only that face's embedding and passive
      // liveness are computed (a smaller face's were never read).
      const single = this.singleFace(session, detected);
      // The face's landmarks start first, and its embedding and passive liveness run beside them
      // on another worker of the inference pool. An expression challenge reads the blendshapes
      // on every frame, so they start as soon as the landmarks are in; a turn or look is judged
      // on the pose alone (below). The measures are read only after the checks that can end the
      // frame first; a frame ended early drops them, and the catches keep that from surfacing
      // as an unhandled rejection.
      const tm = performance.now();
      const measuring = this.measurer.landmarks(img, faceBox(single)).then((m) => {
        if (readsExpression(judged)) m.expression().catch(() => undefined);
        return { m, ms: performance.now() - tm };
      });
      measuring.catch(() => undefined);
      const [face] = await analyseFrameFaces(this.faces, img, [single], stage);
      this.assertHeld(id);
      timings.face = performance.now() - t0;
      timings.face_detect_model = stage.detect_model;
      timings.face_embed = stage.align + stage.embed;
      timings.face_liveness = stage.liveness;
      if (!face) throw new Error('the face service analysed no face of one detection');
      const failed = this.definitiveChecks(session, face, arrivedAt);
      if (failed) return failed;
      const kept = this.samples.get(session) ?? [];
      const sample = sampleFrame(img, face.bbox, kept[0]?.stride);
      const problem = captureProblem(sample, kept);
      this.samples.set(session, [...kept.slice(1 - KEPT_SAMPLES), sample]);
      if (problem === 'capture_discontinuity') {
        // A camera does not change resolution mid-capture: that ends the session at once.
        // Nor does it flip its picture: a mirrored frame is a photo shown the other way round.
        const prev = kept.at(-1)!;
        if (prev.width !== sample.width || prev.height !== sample.height || mirroredOf(prev, sample)) return this.failNow(session, problem, arrivedAt);
        return this.rejectFrame(session, problem, arrivedAt);
      }
      if (problem === 'static_image') {
        // Largely the same pixels as an earlier frame: nothing moved, so nothing is judged.
        session.challengeStatic++;
        return session.frameResult(judged, { passed: false, confidence: 0 });
      }
      const { m, ms } = await measuring;
      timings.measure = ms;
      timings.measure_model = m.landmarkMs;
      this.assertHeld(id);
      if (!m.measurable) {
        throw this.frameError(session, 'FACE_NOT_MEASURABLE', `the face could not be measured (landmark presence ${m.presence.toFixed(2)}); face the camera with the whole face visible`);
      }
      // A turn or look is checked against the pixels of its baseline frame (depth parallax), so
      // the face crop is kept for a frame that reaches a turn's or look's angle or becomes the
      // baseline of one. Whether the frame moved like a head is worked out once, and only for a
      // frame whose angle was reached (the judge asks no other).
      let view: FaceView | null = null;
      const viewOf = () => (view ??= { patch: greyPatch(img, face.bbox, this.baselines.get(session)?.view?.patch.step ?? patchStep(face.bbox)), points: m.points });
      let headMoved: boolean | undefined;
      const moved = () => (headMoved ??= this.movedLikeAHead(session, judged, sample, isHeadMovement(judged) ? viewOf() : null));
      // The blendshapes are run when this frame's verdict or the next challenge's baseline reads
      // them; a turn's or look's other frames are judged and kept as baselines on yaw and pitch.
      let expression: Expression = UNREAD_EXPRESSION;
      if (session.readsExpression(m.pose, this.settings, arrivedAt, moved)) {
        const e = await m.expression();
        this.assertHeld(id);
        expression = e.expression;
        timings.measure += e.ms;
        timings.measure_model += e.ms;
      }
      const j = session.judge({ ...m.pose, ...expression }, this.settings, arrivedAt, moved);
      if (session.baselineAt === arrivedAt) {
        const next = session.currentChallenge?.type;
        this.baselines.set(session, { at: arrivedAt, sample, view: next && isHeadMovement(next) ? viewOf() : null });
      }
      if (session.state === 'completed') this.ended(session, 'completed');
      return session.frameResult(judged, j);
    });
  }

  /**
   * Whether a frame changed since the current challenge's baseline frame as a turning or nodding
   * head does (only turns and looks ask): its face region is not largely the same pixels (a photo
   * warped inside its outline is), the outline beside the face (turns) or above and below it
   * (looks) changed, which a 2-D edit of the features does not do (silhouette.ts), and the nose
   * tip moved further than the bridge between the eyes by its depth, sideways for a turn, up or
   * down for a look, which a flat picture's cannot (depth-parallax.ts). Without the baseline
   * frame's evidence nothing counts as moved. The silhouette and parallax checks are both
   * required: each stops edits the other lets through (an edit that reaches the band beside the
   * face; one whose nose the patch match loses).
   */
  private movedLikeAHead(session: LivenessSession, type: ChallengeType, sample: FrameSample, view: FaceView | null): boolean {
    if (!isHeadMovement(type)) return true;
    const axis = isTurn(type) ? 'yaw' : 'pitch';
    const base = this.baselines.get(session);
    if (!base || base.at !== session.baselineAt) return false;
    if (identicalFraction(sample, base.sample) > CAPTURE.maxIdenticalToBaseline || silhouetteChange(base.sample, sample, axis) < SILHOUETTE.minChangedFraction) return false;
    return base.view !== null && view !== null && showsParallax(base.view, view, axis);
  }

  /** 404 when the session was cancelled (DELETE) while its frame was being decoded or judged. */
  private assertHeld(id: string): void {
    this.store.get(id);
  }

  /** The one face of the frame, or 422 NO_FACE / MULTIPLE_FACES (the session goes on; its timer keeps running). */
  private singleFace(session: LivenessSession, faces: RawFace[]): RawFace {
    const [largest] = faces;
    if (!largest) throw this.frameError(session, 'NO_FACE', 'no face in the frame');
    const size = faceSize(largest.box);
    const others = faces.slice(1).filter((f) => faceSize(f.box) >= SECOND_FACE_RATIO * size);
    if (others.length > 0) throw this.frameError(session, 'MULTIPLE_FACES', `${others.length + 1} faces in the frame; exactly one person must be in view`);
    return largest;
  }

  /** Passive liveness and the same-person check; a failure ends the session and is the frame's answer. */
  private definitiveChecks(session: LivenessSession, face: FrameFace, now: number): FrameResult | null {
    const judged = session.currentChallenge!.type;
    if (face.liveness) session.passiveScores.push(face.liveness.score);
    if (face.liveness && passiveSpoof(session.passiveScores)) {
      session.fail({ reason: 'spoof_detected', challenge: judged, score: face.liveness.score }, now);
    } else if (face.embedding) {
      if (!session.reference) {
        session.reference = face.embedding;
      } else {
        const similarity = this.faces.similarity(session.reference, face.embedding);
        if (similarity < this.ctx.config.liveness.same_person_threshold) {
          session.fail({ reason: 'face_changed', challenge: judged, score: similarity }, now);
        }
      }
    }
    if (session.state !== 'failed') return null;
    this.ended(session, 'failed');
    return session.frameResult(judged, { passed: false, confidence: 0 });
  }

  /** Counts a rejected frame (not judged); enough of them fail the session for that reason. */
  private rejectFrame(session: LivenessSession, why: Rejection, now: number): FrameResult {
    const judged = session.currentChallenge!.type;
    if (session.reject(why, this.ctx.config.liveness.max_rejected_frames)) return this.failNow(session, why, now);
    return session.frameResult(judged, { passed: false, confidence: 0 });
  }

  private failNow(session: LivenessSession, reason: FailureReason, now: number): FrameResult {
    const judged = session.currentChallenge!.type;
    session.fail({ reason, challenge: judged, score: null }, now);
    this.ended(session, 'failed');
    return session.frameResult(judged, { passed: false, confidence: 0 });
  }

  private frameError(session: LivenessSession, code: ErrorCode, message: string): UnprocessableError {
    return new UnprocessableError(code, `${message} (session ${session.id} stays ${session.state})`, {
      session_id: session.id,
      state: session.state,
      challenge_type: session.currentChallenge?.type ?? null,
    });
  }

  /** Events and abuse counters for a session that just ended. */
  private ended(session: LivenessSession, ending: Ending): void {
    const now = this.deps.clock();
    if (ending === 'completed') {
      this.ctx.bus.emit('liveness_passed', 'liveness', livenessEventData(session));
    } else if (ending === 'failed') {
      this.ctx.bus.emit('liveness_failed', 'liveness', livenessEventData(session));
      this.limiter.recordFailure(session.client, now);
    } else if (session.frames > 0 && session.isLive === null) {
      // Expired while in progress (a session_ttl shorter than its challenges' timeouts).
      this.limiter.recordFailure(session.client, now);
    }
  }
}

const isTurn = (type: ChallengeType) => type === 'TURN_LEFT' || type === 'TURN_RIGHT';
const isHeadMovement = (type: ChallengeType) => isTurn(type) || type === 'LOOK_UP' || type === 'LOOK_DOWN';

export function emptyFrameTimings(): FrameTimings {
  return { decode: 0, face: 0, face_detect_model: 0, face_embed: 0, face_liveness: 0, measure: 0, measure_model: 0 };
}
