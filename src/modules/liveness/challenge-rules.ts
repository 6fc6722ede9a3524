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
  /** Yaw change from the neutral frame that a head turn must reach. */
  turnDegrees: number;
  /** Pitch change from the neutral frame that looking up or down must reach. */
  lookDegrees: number;
}

/**
 * Thresholds measured on the shared test photos and the Hamilton clip (docs/accuracy.md,
 * "Active liveness"): neutral faces scored smile <= 0.36, jawOpen <= 0.22 and eyeBlink <= 0.43;
 * smiles 0.69-0.97, open mouths 0.40-0.45 (jawOpen is conservative on speech-like openings).
 */
export const RULES = {
  /** A face counts as facing the camera for a turn or look baseline within this yaw. */
  neutralYaw: 12,
  smile: { neutralMax: 0.3, pass: 0.6, full: 0.95 },
  jawOpen: { neutralMax: 0.15, pass: 0.35, full: 0.7 },
  /** Blink: both eyes open at the baseline, both closed, then open again. */
  blink: { openMax: 0.45, closedMin: 0.55, minRise: 0.25, full: 0.9 },
} as const;

/** Per-challenge memory: the latest neutral frame and, for a blink, the strongest closure seen after it. */
export interface ChallengeProgress {
  baseline: FaceMeasures | null;
  closure: number | null;
}

export function newProgress(): ChallengeProgress {
  return { baseline: null, closure: null };
}

export interface Judgement {
  passed: boolean;
  /** 0 at the neutral baseline, 0.5 at the pass threshold, 1 at a full action (piecewise linear). */
  confidence: number;
}

/** Piecewise-linear 0 -> 0.5 -> 1 over (zero, pass, full), clamped. */
function ramp(value: number, zero: number, pass: number, full: number): number {
  if (value <= zero) return 0;
  if (value < pass) return (0.5 * (value - zero)) / (pass - zero);
  if (value < full) return 0.5 + (0.5 * (value - pass)) / (full - pass);
  return 1;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

function isNeutral(type: ChallengeType, m: FaceMeasures): boolean {
  switch (type) {
    case 'TURN_LEFT':
    case 'TURN_RIGHT':
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
 * from a neutral frame seen while it was current: a turn or look must move the head by the
 * configured angle from that frame's pose, a smile or open mouth must rise from a neutral
 * score past its threshold, and a blink must go open -> closed -> open. Frames that do not
 * complete the challenge are offered as its baseline (seedBaseline).
 */
export function judgeFrame(type: ChallengeType, progress: ChallengeProgress, m: FaceMeasures, settings: RuleSettings): Judgement {
  const base = progress.baseline;
  let confidence = 0;
  let passed = false;
  if (base) {
    switch (type) {
      case 'TURN_LEFT':
      case 'TURN_RIGHT': {
        const delta = type === 'TURN_LEFT' ? m.yaw - base.yaw : base.yaw - m.yaw;
        confidence = ramp(delta, 0, settings.turnDegrees, 2 * settings.turnDegrees);
        passed = delta >= settings.turnDegrees;
        break;
      }
      case 'LOOK_UP':
      case 'LOOK_DOWN': {
        const delta = type === 'LOOK_UP' ? m.pitch - base.pitch : base.pitch - m.pitch;
        confidence = ramp(delta, 0, settings.lookDegrees, 2 * settings.lookDegrees);
        passed = delta >= settings.lookDegrees;
        break;
      }
      case 'SMILE':
        confidence = ramp(m.smile, RULES.smile.neutralMax, RULES.smile.pass, RULES.smile.full);
        passed = m.smile >= RULES.smile.pass;
        break;
      case 'OPEN_MOUTH':
        confidence = ramp(m.jawOpen, RULES.jawOpen.neutralMax, RULES.jawOpen.pass, RULES.jawOpen.full);
        passed = m.jawOpen >= RULES.jawOpen.pass;
        break;
      case 'BLINK': {
        const b = RULES.blink;
        const baseOpen = Math.max(base.blinkLeft, base.blinkRight);
        const closed = Math.min(m.blinkLeft, m.blinkRight);
        if (closed >= Math.max(b.closedMin, baseOpen + b.minRise)) {
          progress.closure = Math.max(progress.closure ?? 0, closed);
          confidence = ramp(closed, b.openMax, b.closedMin, b.full);
        } else if (progress.closure !== null && Math.max(m.blinkLeft, m.blinkRight) <= b.openMax) {
          // Reopened after a closure: the blink is complete; its strength is the closure's.
          confidence = ramp(progress.closure, b.openMax, b.closedMin, b.full);
          passed = true;
        }
        break;
      }
    }
  }
  if (!passed && progress.closure === null) seedBaseline(type, progress, m);
  return { passed, confidence: round3(passed ? Math.max(confidence, 0.5) : Math.min(confidence, 0.499)) };
}

/**
 * Offers a frame as the challenge's baseline. For turns and looks the neutral frame farthest
 * from the asked direction is kept, so a head turning slowly through the neutral zone is
 * measured from where it started rather than from its last neutral frame; for expressions
 * the latest neutral frame is kept.
 */
export function seedBaseline(type: ChallengeType, progress: ChallengeProgress, m: FaceMeasures): void {
  if (!isNeutral(type, m)) return;
  const base = progress.baseline;
  if (base) {
    if (type === 'TURN_LEFT' && m.yaw >= base.yaw) return;
    if (type === 'TURN_RIGHT' && m.yaw <= base.yaw) return;
    if (type === 'LOOK_UP' && m.pitch >= base.pitch) return;
    if (type === 'LOOK_DOWN' && m.pitch <= base.pitch) return;
  }
  progress.baseline = m;
}
