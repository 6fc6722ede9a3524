/** The ten event types of the spec, with the payload each carries in `data`. */
export const EVENT_TYPES = [
  'face_detected',
  'face_matched',
  'watchlist_alert',
  'liveness_passed',
  'liveness_failed',
  'document_scanned',
  'person_entered',
  'person_exited',
  'line_crossed',
  'system_error',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** Spec rule 3: exactly these four fields for face_matched and watchlist_alert. */
export interface MatchEventData {
  identity_id: string;
  label: string;
  similarity: number;
  watchlist: string;
}

/** Payloads per type. Types the spec leaves open are documented by the module that emits them. */
export interface EventDataMap {
  face_detected: Record<string, unknown>;
  face_matched: MatchEventData;
  watchlist_alert: MatchEventData;
  liveness_passed: Record<string, unknown>;
  liveness_failed: Record<string, unknown>;
  document_scanned: Record<string, unknown>;
  person_entered: Record<string, unknown>;
  person_exited: Record<string, unknown>;
  line_crossed: Record<string, unknown>;
  system_error: { module: string; message: string; [extra: string]: unknown };
}

/** The Event object exactly as the spec shows it. */
export interface VigilEvent<T extends EventType = EventType> {
  id: string;
  type: T;
  timestamp: string;
  source: string;
  data: EventDataMap[T];
  camera_id: string | null;
}
