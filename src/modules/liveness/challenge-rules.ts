import type { ChallengeType } from './challenges.js';

/**
 * What the frame judge reads off one face. Angles in degrees from the dense landmarks
 * (head-pose.ts); expression scores 0..1 from the blendshapes model.
 * yaw > 0: the user turned to THEIR left (nose towards the right of an unmirrored camera image).
 * pitch > 0: the user tilted the head up.
 */
export interface FaceMeasures {
  yaw: number;
  pitch: number;
  /** eyeBlinkLeft / eyeBlinkRight (the user's left and right eye). */
  blinkLeft: number;
  blinkRight: number;
  /** Mean of mouthSmileLeft and mouthSmileRight. */
  smile: number;
  jawOpen: number;
}

export interface RuleSettings {
  /** Yaw change from the baseline frame that a head turn must reach. */
  turnDegrees: number;
  /** Pitch change from the baseline frame that looking up or down must reach. */
  lookDegrees: number;
  /** Least time (ms) between the first baseline frame and the frame that completes the action. */
  minActionMs: number;
}

/**
 * Thresholds measured on the shared test photos and the Hamilton clip (docs/accuracy.md,
 * "Active liveness"): neutral faces scored smile <= 0.36, jawOpen <= 0.22 and eyeBlink <= 0.43;
 * smiles 0.69-0.97, open mouths 0.40-0.45 (jawOpen is conservative on speech-like openings).
 */
export const RULES = {
  /**
   * A face counts as facing the camera within this yaw: a look's baseline must, and a turn's
   * completing frame must be turned past it by turnDegrees - neutralYaw to the asked side.
   */
  neutralYaw: 12,
  smile: { neutralMax: 0.3, pass: 0.6 },
  jawOpen: { neutralMax: 0.15, pass: 0.35 },
  /** Blink: both eyes open at the baseline, both closed, then open again. */
  blink: { openMax: 0.45, closedMin: 0.55, minRise: 0.25 },
} as const;

/**
 * Per-challenge memory: the baseline frame measured from (and when it arrived), when the first
 * baseline frame of the challenge arrived, and, for a blink, the strongest closure seen.
 */
export interface ChallengeProgress {
  baseline: FaceMeasures | null;
  baselineAt: number;
  firstBaselineAt: number | null;
  closure: number | null;
}

export function newProgress(): ChallengeProgress {
  return { baseline: null, baselineAt: 0, firstBaselineAt: null, closure: null };
}

/**
 * The frame's outcome. `confidence` is deliberately coarse (1 when the frame completed the
 * challenge, 0 otherwise): a graded score rising as an edit nears the threshold is a gradient
 * an attacker climbs (issue 22).
 */
export interface Judgement {
  passed: boolean;
  confidence: number;
  /** A turn or look whose angle was reached on a frame that did not change like a moving head (never sent to the client). */
  flat?: boolean;
}

/** The expression scores of FaceMeasures: what the blendshapes model gives. */
export type Expression = Pick<FaceMeasures, 'blinkLeft' | 'blinkRight' | 'smile' | 'jawOpen'>;

/**
 * The expression of a frame whose blendshapes were not run: no rule of a turn or look reads it,
 * and were one to, NaN would neither pass nor seed anything (every comparison with it is false).
 */
export const UNREAD_EXPRESSION: Readonly<Expression> = { blinkLeft: NaN, blinkRight: NaN, smile: NaN, jawOpen: NaN };

/**
 * Whether a frame changed since its baseline as a moving 3-D head does (liveness-service.ts):
 * the answer, or a function that works it out, called only when a turn's or look's angle was
 * reached.
 */
export type Moved = boolean | (() => boolean);

/** Whether a challenge is judged on the blendshapes' expression scores (the others on head pose alone). */
export function readsExpression(type: ChallengeType): boolean {
  return type === 'BLINK' || type === 'SMILE' || type === 'OPEN_MOUTH';
}

/**
 * Whether a frame may be a challenge's baseline. Any frame may start a turn: a head swinging
 * from one side to the other can cross the facing-the-camera zone between two frames (at
 * 10 fps a quick real turn spends one frame or none in it), and the completing frame must be
 * turned to the asked side anyway. A look is measured from a frame facing the camera, so a
 * turned head's pitch is not read as a nod.
 */
function isBaseline(type: ChallengeType, m: FaceMeasures): boolean {
  switch (type) {
    case 'TURN_LEFT':
    case 'TURN_RIGHT':
      return true;
    case 'LOOK_UP':
    case 'LOOK_DOWN':
      return Math.abs(m.yaw) <= RULES.neutralYaw;
    case 'BLINK':
      return Math.max(m.blinkLeft, m.blinkRight) <= RULES.blink.openMax;
    case 'SMILE':
      return m.smile <= RULES.smile.neutralMax;
    case 'OPEN_MOUTH':
      return m.jawOpen <= RULES.jawOpen.neutralMax;
  }
}

/**
 * Judges one frame against the current challenge. A challenge passes only on a transition
 * from a baseline frame seen while it was current (isBaseline): a turn or look must move the
 * head by the configured angle from that frame's pose, a turn ending turned to the asked side
 * (and `moved`: the frame changed since that one as a
 * turning 3-D head's does, its face region and the outline around it, and for a turn its nose
 * against the bridge by their depth, where a warped photo's do not; see silhouette.ts and
 * depth-parallax.ts), a smile or open mouth must rise from a neutral
 * score past its threshold, and a blink must go open -> closed -> open. Frames that do not
 * complete the challenge are offered as its baseline (seedBaseline).
 */
export function judgeFrame(type: ChallengeType, progress: ChallengeProgress, m: FaceMeasures, settings: RuleSettings, now: number, moved: Moved = true): Judgement {
  const base = progress.baseline;
  // Asked only of a frame whose angle was reached: the pixel checks behind it cost more than the rest of the judge.
  const headMoved = () => (typeof moved === 'function' ? moved() : moved);
  let passed = false;
  let flat = false;
  if (base) {
    switch (type) {
      case 'TURN_LEFT':
      case 'TURN_RIGHT': {
        const sign = type === 'TURN_LEFT' ? 1 : -1;
        const turned = sign * (m.yaw - base.yaw) >= settings.turnDegrees && sign * m.yaw >= settings.turnDegrees - RULES.neutralYaw;
        passed = turned && headMoved();
        flat = turned && !passed;
        break;
      }
      case 'LOOK_UP':
      case 'LOOK_DOWN': {
        const delta = type === 'LOOK_UP' ? m.pitch - base.pitch : base.pitch - m.pitch;
        const looked = delta >= settings.lookDegrees;
        passed = looked && headMoved();
        flat = looked && !passed;
        break;
      }
      case 'SMILE':
        passed = m.smile >= RULES.smile.pass;
        break;
      case 'OPEN_MOUTH':
        passed = m.jawOpen >= RULES.jawOpen.pass;
        break;
      case 'BLINK': {
        const b = RULES.blink;
        const baseOpen = Math.max(base.blinkLeft, base.blinkRight);
        const closed = Math.min(m.blinkLeft, m.blinkRight);
        if (closed >= Math.max(b.closedMin, baseOpen + b.minRise)) {
          progress.closure = Math.max(progress.closure ?? 0, closed);
        } else if (progress.closure !== null && Math.max(m.blinkLeft, m.blinkRight) <= b.openMax) {
          // Reopened after a closure: the blink is complete.
          passed = true;
        }
        break;
      }
    }
  }
  // No challenge completes less than minActionMs after its first baseline frame: a faster one
  // is a burst of prepared frames (issue 22). Counted from the first baseline frame, not the
  // latest: a real mouth opens or eyes blink within 100 ms of the last neutral frame.
  if (passed && now - (progress.firstBaselineAt ?? now) < settings.minActionMs) passed = false;
  if (!passed && progress.closure === null) seedBaseline(type, progress, m, now);
  return flat ? { passed, confidence: 0, flat } : { passed, confidence: passed ? 1 : 0 };
}

/**
 * Offers a frame as the challenge's baseline. For turns and looks the frame farthest from the
 * asked direction is kept, so a head turning slowly is measured from where it started rather
 * than from its latest frame; for expressions the latest neutral frame is kept.
 */
export function seedBaseline(type: ChallengeType, progress: ChallengeProgress, m: FaceMeasures, now: number): void {
  if (!isBaseline(type, m)) return;
  const base = progress.baseline;
  if (base) {
    if (type === 'TURN_LEFT' && m.yaw >= base.yaw) return;
    if (type === 'TURN_RIGHT' && m.yaw <= base.yaw) return;
    if (type === 'LOOK_UP' && m.pitch >= base.pitch) return;
    if (type === 'LOOK_DOWN' && m.pitch <= base.pitch) return;
  }
  progress.baseline = m;
  progress.baselineAt = now;
  progress.firstBaselineAt ??= now;
}
