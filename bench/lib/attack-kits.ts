// The attack species of issue 22 as kits: for each challenge type, the frames an attacker with
// one photo sends, strongest edit last. The runner climbs each ladder frame by frame until the
// challenge passes, so every kit is also the "iterate and climb" attacker.
import type { RgbImage } from '../../src/core/image-decode.js';
import type { ChallengeType } from '../../src/modules/liveness/challenges.js';
import * as E from './attack-edits.js';

export const SPECIES = ['warp', 'slide', 'perspective', 'mirror', 'burst', 'replay', 'pad', 'noise'] as const;
export type Species = (typeof SPECIES)[number];

export const SPECIES_NOTES: Record<Species, string> = {
  warp: 'turns: squeeze/stretch about the nose; looks: inner face slid up/down; smile: mouth corners out and up; open mouth: jaw dropped, opening painted; blink: eyes painted with skin, then the photo again',
  slide: 'turns: inner face slid sideways inside an unmoved outline; looks: slid up/down; blink: painted with a dark lid line; expressions as warp',
  perspective: 'turns and looks: the whole photo seen tilted (homography, up to 63 deg); expressions as warp',
  mirror: 'every action frame of the warp kit mirrored left-right (a mirrored photo reads as the opposite turn)',
  burst: 'the warp kit sent 2 ms apart (a session in well under a second)',
  replay: "the victim's other photos (and their mirror images) as action frames",
  pad: 'the warp kit on presentation-attack stills (print, screen, mask, deepfake, vendor genuine photo)',
  noise: 'the warp kit with fresh Gaussian noise (sigma 4) on every frame, as a camera would add',
};

/** One photo the attacker holds, with what /detect said about it. */
export interface Victim {
  name: string;
  img: RgbImage;
  geom: E.FaceGeom;
  /** Other photos of the same person (replay species). */
  others: RgbImage[];
}

/**
 * A step of a ladder: the frame (made when first asked for: a session that ends early never
 * needs the strongest edits), and whether the attacker expects it to complete the challenge.
 */
export interface Step {
  img: () => RgbImage;
  action: boolean;
}

/** Edit strengths the attacker climbs through (1 is a clearly visible edit, 1.8 a grotesque one). */
const STRENGTHS = [0.5, 0.9, 1.3, 1.8];

type Edit = (v: Victim, s: number, dir: 1 | -1) => RgbImage;

/** TURN_LEFT is the user's own left: the nose moves towards image right (dir +1). */
const turnDir = (t: ChallengeType): 1 | -1 => (t === 'TURN_LEFT' ? 1 : -1);
const lookDir = (t: ChallengeType): 1 | -1 => (t === 'LOOK_UP' ? -1 : 1);

function expression(t: ChallengeType, v: Victim, s: number, lid: boolean): RgbImage {
  if (t === 'SMILE') return E.smileWarp(v.img, v.geom, s);
  if (t === 'OPEN_MOUTH') return E.openMouth(v.img, v.geom, s);
  return E.paintEyes(v.img, v.geom, s, lid);
}

function geometric(kind: 'warp' | 'slide' | 'perspective', t: ChallengeType): Edit {
  const turn = t === 'TURN_LEFT' || t === 'TURN_RIGHT';
  if (kind === 'perspective') return (v, s, d) => E.perspective(v.img, v.geom, turn ? 'yaw' : 'pitch', d * 35 * s);
  if (turn) return kind === 'warp' ? (v, s, d) => E.squeezeTurn(v.img, v.geom, d, s) : (v, s, d) => E.slideInner(v.img, v.geom, d * 0.14 * s, 0);
  return (v, s, d) => E.slideInner(v.img, v.geom, 0, d * 0.13 * s);
}

/**
 * The frames for one challenge: the neutral photo, then the ladder of edits. For turns and
 * looks the attacker also tries the other direction (left/right conventions differ between
 * products); a blink is a painted frame followed by the photo again.
 */
export function ladder(species: Species, t: ChallengeType, v: Victim): Step[] {
  const steps: Step[] = [{ img: () => v.img, action: false }];
  if (species === 'replay') {
    for (const o of v.others) steps.push({ img: () => o, action: true }, { img: () => E.mirror(o), action: true });
    return steps;
  }
  const kind = species === 'slide' || species === 'perspective' ? species : 'warp';
  const geo = t === 'TURN_LEFT' || t === 'TURN_RIGHT' || t === 'LOOK_UP' || t === 'LOOK_DOWN';
  const dirs: (1 | -1)[] = geo ? [t.startsWith('TURN') ? turnDir(t) : lookDir(t)] : [1];
  if (geo) dirs.push(-dirs[0]! as 1 | -1);
  for (const d of dirs) {
    for (const s of STRENGTHS) {
      const make = () => (geo ? geometric(kind, t)(v, s, d) : expression(t, v, s, species === 'slide'));
      steps.push({ img: species === 'mirror' ? () => E.mirror(make()) : make, action: true });
      if (t === 'BLINK') steps.push({ img: () => v.img, action: true });
    }
  }
  return steps;
}
