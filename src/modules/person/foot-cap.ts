import type { TrackedPerson } from './bytetrack.js';

/**
 * Where a tracked person stands, corrected for one failure of the detector measured on the MOT
 * scenes (bench/diagnose-detection.ts, docs/accuracy.md "Detection's share"): behind someone
 * else, the box the detector still draws takes in the legs of the person in front, and its
 * bottom lies about 13 % of the person's height below their own feet. A floor-line counter
 * sees that as a step forward and back. A person's height in the picture changes slowly (only
 * as they walk towards or away from the camera), so a box much taller than the same track's
 * recent median has grown downwards: its bottom is capped at its top plus that median height.
 * Boxes that shrink (feet hidden or cut by the frame's edge) are left as they are; moving
 * those down measured worse on zones and on the held-back scene.
 */
export class FootCap {
  private readonly heights = new Map<number, { h: number[]; seen: number }>();
  private frame = 0;

  /** `frames`: how many of a track's recent boxes give its median height; `forgetFrames`: a track unseen this long is dropped. */
  constructor(
    private readonly frames = 8,
    private readonly forgetFrames = 60,
  ) {}

  /** This frame's tracks with their bottom capped; the input is not modified. */
  apply(tracks: readonly TrackedPerson[]): TrackedPerson[] {
    this.frame++;
    const out = tracks.map((t) => {
      const m = this.heights.get(t.trackId) ?? { h: [], seen: 0 };
      m.h.push(t.y2 - t.y1);
      if (m.h.length > this.frames) m.h.shift();
      m.seen = this.frame;
      this.heights.set(t.trackId, m);
      const sorted = [...m.h].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      return t.y2 - t.y1 > median ? { ...t, y2: t.y1 + median } : t;
    });
    for (const [id, m] of this.heights) if (this.frame - m.seen > this.forgetFrames) this.heights.delete(id);
    return out;
  }
}
