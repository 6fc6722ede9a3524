import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, EVENT_TYPES, type VigilEvent } from './api.js';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
}

/**
 * Runs `load` now and every `everyMs` (0: once) while the page is shown; keeps the last good
 * data when a refresh fails and reports the failure's message.
 */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, deps: unknown[] = []): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const v = await loadRef.current();
        if (!alive) return;
        setData(v);
        setError(null);
      } catch (err) {
        if (alive) setError(errorText(err));
      }
      if (alive && everyMs > 0) timer = setTimeout(() => void run(), everyMs);
    };
    void run();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
    // `deps` are the caller's: a change of them restarts the polling.
  }, [everyMs, tick, ...deps]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload };
}

/**
 * The newest events: the history from /events/recent, then each new one as the daemon emits
 * it over /events/stream (EventSource reconnects by itself; on reconnect the history is read
 * again so nothing emitted in between is missed).
 */
export function useLiveEvents(eventType: string, max = 100): { events: VigilEvent[]; live: boolean; error: string | null } {
  const [events, setEvents] = useState<VigilEvent[]>([]);
  const [live, setLive] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const q = eventType ? `event_type=${encodeURIComponent(eventType)}` : '';
    let alive = true;
    const loadHistory = async () => {
      try {
        const recent = await api.get<VigilEvent[]>(`/events/recent?limit=${max}${q ? `&${q}` : ''}`);
        if (alive) {
          setEvents((cur) => merge(recent, cur, max));
          setError(null);
        }
      } catch (err) {
        if (alive) setError(errorText(err));
      }
    };
    setEvents([]);
    const source = new EventSource(`/api/v1/events/stream${q ? `?${q}` : ''}`);
    source.onopen = () => {
      setLive(true);
      void loadHistory();
    };
    source.onerror = () => setLive(false);
    const onEvent = (msg: MessageEvent<string>) => {
      const e = JSON.parse(msg.data) as VigilEvent;
      setEvents((cur) => merge([e], cur, max));
    };
    for (const t of ALL_TYPES) source.addEventListener(t, onEvent as EventListener);
    return () => {
      alive = false;
      source.close();
    };
  }, [eventType, max]);
  return { events, live, error };
}

const ALL_TYPES: readonly string[] = EVENT_TYPES;

/** Newest first, each id once. */
function merge(incoming: VigilEvent[], current: VigilEvent[], max: number): VigilEvent[] {
  const seen = new Set<string>();
  const all = [...incoming, ...current].filter((e) => (seen.has(e.id) ? false : (seen.add(e.id), true)));
  all.sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0));
  return all.slice(0, max);
}
