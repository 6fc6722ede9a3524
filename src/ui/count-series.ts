// Turns a count-history answer into chart series; plain TypeScript (no DOM) so node tests it.

const TIME_KEYS = ['start', 'bucket_start', 'from', 'time', 'timestamp', 't', 'at'];
const VALUE_KEYS = ['in', 'out', 'entered', 'exited', 'peak_occupancy', 'occupancy'];

/** Series name -> (bucket time in ms -> value). */
export type Series = Map<string, Map<number, number>>;

/**
 * Reads time-bucketed counts whatever nesting the history endpoint uses (buckets holding rules,
 * or rules holding buckets): an object with count fields contributes a point at the nearest
 * bucket time at or above it, to the series named after the nearest rule name (or rule_id) at
 * or above it and the field. An answer without times or counts gives no series.
 */
export function seriesOf(json: unknown): Series {
  const out: Series = new Map();
  const walk = (v: unknown, label: string, time: number | null) => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, label, time);
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    const own = typeof o.name === 'string' ? o.name : typeof o.rule_id === 'string' ? o.rule_id : label;
    const tk = TIME_KEYS.find((k) => typeof o[k] === 'string' && !Number.isNaN(Date.parse(o[k] as string)));
    const t = tk ? Date.parse(o[tk] as string) : time;
    if (t !== null) {
      for (const k of VALUE_KEYS) {
        const value = o[k];
        if (typeof value !== 'number') continue;
        const name = own ? `${own} ${k}` : k;
        const s = out.get(name) ?? new Map<number, number>();
        s.set(t, (s.get(t) ?? 0) + value);
        out.set(name, s);
      }
    }
    for (const child of Object.values(o)) if (child && typeof child === 'object') walk(child, own, t);
  };
  walk(json, '', null);
  return out;
}
