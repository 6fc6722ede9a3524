import type { TrackedPerson } from '../../person/bytetrack.js';
import type { Pt } from './geometry.js';
import { LineCounter } from './line-counter.js';
import type { CountingRule, LineCounts, LineRule, RuleView, ZoneCounts, ZoneRule } from './rules.js';
import { ZoneCounter } from './zone-counter.js';
import { DEFAULT_TRACK_MEMORY, TrackMemory, type TrackMemorySettings } from './track-memory.js';

/** Payload of line_crossed (documented in docs/video.md). */
export interface LineCrossedData {
  rule_id: string;
  rule_name: string;
  track_id: number;
  direction: 'in' | 'out';
  direction_label: string;
  counts: LineCounts;
  [k: string]: unknown;
}

/** Payload of person_entered / person_exited. */
export interface ZoneEventData {
  rule_id: string;
  rule_name: string;
  track_id: number;
  how: 'crossed' | 'appeared' | 'lost';
  counts: ZoneCounts;
  [k: string]: unknown;
}

export type CountEvent = { type: 'line_crossed'; rule: LineRule; data: LineCrossedData } | { type: 'person_entered' | 'person_exited'; rule: ZoneRule; data: ZoneEventData };

type Stored = { in: number; out: number } | { entered: number; exited: number };

interface Entry {
  rule: CountingRule;
  line?: LineCounter;
  zone?: ZoneCounter;
  counts: Totals;
  /** The counts known to be on disk: what view() and views() report. */
  committed: Totals;
}

type Totals = { in: number; out: number; entered: number; exited: number };

function viewOf(e: Entry, c: Totals): RuleView {
  return e.rule.type === 'line' ? { rule: e.rule, counts: { in: c.in, out: c.out } } : { rule: e.rule, counts: { entered: c.entered, exited: c.exited, occupancy: e.zone?.occupancy ?? 0 } };
}

export interface CountingSettings extends TrackMemorySettings {
  /**
   * A change of side of a line counts once the person has stood clearly on the new side
   * in this many processed frames (LineCounter). Three: on the random lines of
   * bench/eval-tracking.ts it cut counts of crossings that did not happen (boxes that
   * flick over a line and back, ids traded for a frame) without losing real ones.
   */
  settleFrames: number;
}

export const DEFAULT_SETTLE_FRAMES = 3;

/** Bottom-centre of the box: where the person stands, the point that crosses floor lines. */
export function anchorOf(t: { x1: number; x2: number; y2: number }): Pt {
  return [(t.x1 + t.x2) / 2, t.y2];
}

/**
 * The counting rules of one camera applied to its tracks, frame by frame. Rule
 * geometry is in fractions of the frame; counters work in pixels of the frame
 * size seen (rebuilt if the stream's size changes).
 */
export class CameraCounting {
  private readonly entries = new Map<string, Entry>();
  private size = { width: 0, height: 0 };
  private readonly memory: TrackMemory;

  private readonly settleFrames: number;

  constructor(settings: Partial<CountingSettings> = {}) {
    const { settleFrames = DEFAULT_SETTLE_FRAMES, ...memory } = settings;
    this.settleFrames = settleFrames;
    this.memory = new TrackMemory({ ...DEFAULT_TRACK_MEMORY, ...memory });
  }

  setRule(rule: CountingRule, stored?: Stored): void {
    const counts = { in: 0, out: 0, entered: 0, exited: 0, ...(stored ?? {}) };
    const entry: Entry = { rule, counts, committed: { ...counts } };
    this.entries.set(rule.rule_id, entry);
    if (this.size.width > 0) this.build(entry);
  }

  removeRule(ruleId: string): boolean {
    return this.entries.delete(ruleId);
  }

  rules(): CountingRule[] {
    return [...this.entries.values()].map((e) => e.rule);
  }

  has(ruleId: string): boolean {
    return this.entries.has(ruleId);
  }

  /** Live counts of one rule in its public shape (evaluation and tests; the API reads view()). */
  countsOf(ruleId: string): LineCounts | ZoneCounts | undefined {
    const e = this.entries.get(ruleId);
    return e && viewOf(e, e.counts).counts;
  }

  /**
   * One rule with its counts as last committed to disk (occupancy live), typed by the rule's
   * kind: what the API, MQTT and metrics report. A count is reported once its write has
   * committed, so a count a client has seen survives kill -9 (a line read out 2 before a
   * kill and out 1 after it while the write was in flight).
   */
  view(ruleId: string): RuleView | undefined {
    const e = this.entries.get(ruleId);
    return e && viewOf(e, e.committed);
  }

  /** Every rule with its counts, in the order they were set. */
  views(): RuleView[] {
    return [...this.entries.values()].map((e) => viewOf(e, e.committed));
  }

  /** Records that `stored` (a storedCounts snapshot) has been committed to disk. */
  markCommitted(ruleId: string, stored: Stored): void {
    const e = this.entries.get(ruleId);
    if (e) e.committed = { ...e.committed, ...stored };
  }

  /** What is persisted (occupancy is live state and is not). */
  storedCounts(ruleId: string): Stored | undefined {
    const e = this.entries.get(ruleId);
    if (!e) return undefined;
    return e.rule.type === 'line' ? { in: e.counts.in, out: e.counts.out } : { entered: e.counts.entered, exited: e.counts.exited };
  }

  /** Zeroes the in/out and entered/exited counters; occupancy (who is inside now) stays. */
  reset(ruleId?: string): string[] {
    const ids: string[] = [];
    for (const e of this.entries.values()) {
      if (ruleId && e.rule.rule_id !== ruleId) continue;
      e.counts = { in: 0, out: 0, entered: 0, exited: 0 };
      ids.push(e.rule.rule_id);
    }
    return ids;
  }

  /**
   * Applies one frame's confirmed tracks; returns what happened. Per-track state lives
   * as long as the track memory keeps the id (a lost id may still be continued by a
   * new one), so the tracker's `removed` ids are not needed here: they expire the same
   * number of processed frames after they were last seen.
   */
  process(tracks: readonly TrackedPerson[], _removed: readonly number[], width: number, height: number): CountEvent[] {
    if (width !== this.size.width || height !== this.size.height) {
      this.size = { width, height };
      for (const e of this.entries.values()) this.build(e);
    }
    const { points, bands, lineBands, continued } = this.memory.update(tracks, width, height);
    for (const e of this.entries.values()) {
      for (const c of continued) {
        e.line?.continueAs(c.lost, c.fresh, c.reached, points.get(c.fresh)!);
        e.zone?.rename(c.lost, c.fresh);
      }
    }
    return this.apply(tracks, points, bands, lineBands, this.memory.expire());
  }

  /**
   * The stream ended (a file played to its end): every track still alive is gone for
   * good, so people inside a zone exit (how 'lost') and no line keeps a side for them.
   */
  endOfStream(): CountEvent[] {
    const ids = new Set<number>(this.memory.ids());
    for (const e of this.entries.values()) for (const id of [...(e.zone?.trackIds() ?? []), ...(e.line?.trackIds() ?? [])]) ids.add(id);
    this.memory.clear();
    return this.apply([], new Map(), new Map(), new Map(), [...ids]);
  }

  private apply(tracks: readonly TrackedPerson[], points: Map<number, Pt>, bands: Map<number, number>, lineBands: Map<number, number>, gone: readonly number[]): CountEvent[] {
    const events: CountEvent[] = [];
    for (const e of this.entries.values()) {
      if (e.line) {
        const rule = e.rule as LineRule;
        const crossed: { trackId: number; dir: 'in' | 'out' }[] = [];
        for (const t of tracks) {
          const dir = e.line.observe(t.trackId, points.get(t.trackId) ?? anchorOf(t), lineBands.get(t.trackId));
          if (dir) crossed.push({ trackId: t.trackId, dir });
        }
        // A track gone for good while its change of side was settling still crossed.
        for (const id of gone) {
          const dir = e.line.forget(id);
          if (dir) crossed.push({ trackId: id, dir });
        }
        for (const { trackId, dir } of crossed) {
          e.counts[dir]++;
          events.push({
            type: 'line_crossed',
            rule,
            data: {
              rule_id: rule.rule_id,
              rule_name: rule.name,
              track_id: trackId,
              direction: dir,
              direction_label: dir === 'in' ? rule.in_label : rule.out_label,
              counts: { in: e.counts.in, out: e.counts.out },
            },
          });
        }
      } else if (e.zone) {
        const rule = e.rule as ZoneRule;
        const zone = e.zone;
        const emit = (trackId: number, tr: { kind: 'entered' | 'exited'; how: ZoneEventData['how'] }) => {
          e.counts[tr.kind]++;
          events.push({
            type: tr.kind === 'entered' ? 'person_entered' : 'person_exited',
            rule,
            data: {
              rule_id: rule.rule_id,
              rule_name: rule.name,
              track_id: trackId,
              how: tr.how,
              counts: { entered: e.counts.entered, exited: e.counts.exited, occupancy: zone.occupancy },
            },
          });
        };
        for (const t of tracks) {
          const tr = zone.observe(t.trackId, points.get(t.trackId) ?? anchorOf(t), bands.get(t.trackId));
          if (tr) emit(t.trackId, tr);
        }
        for (const id of gone) {
          const tr = zone.lost(id);
          if (tr) emit(id, tr);
        }
      }
    }
    return events;
  }

  private build(e: Entry): void {
    const { width, height } = this.size;
    const px = (p: readonly [number, number]): Pt => [p[0] * width, p[1] * height];
    const margin = e.rule.hysteresis * Math.hypot(width, height);
    if (e.rule.type === 'line') {
      e.line = new LineCounter(px(e.rule.points[0]), px(e.rule.points[1]), margin, this.settleFrames);
      e.zone = undefined;
    } else {
      e.zone = new ZoneCounter(e.rule.points.map(px), margin);
      e.line = undefined;
    }
  }
}
