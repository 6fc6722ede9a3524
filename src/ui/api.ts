// The dashboard's only way to the daemon: the public REST API under /api/v1, same origin.
// Every non-2xx answer becomes an ApiError carrying the daemon's {code, message}, which the
// pages show as they are (the operator sees the daemon's own explanation).

import { parseRetryAfter } from '../modules/events/retry-schedule.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds the daemon asked to wait (Retry-After on 503 BUSY and 429), when it sent one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  /**
   * The daemon asked for the request again later (Retry-After: 503 BUSY's load shedding, 429's
   * rate limit) or the connection was lost. Other refusals, 503s included (a model not loaded,
   * a module switched off), stay refused.
   */
  get transient(): boolean {
    return this.retryAfterSeconds !== null || this.status === 0;
  }
}

/** Retry-After in seconds (delay-seconds or an HTTP date), read as the webhook deliveries read a receiver's. */
function retryAfter(res: Response): number | null {
  const ms = parseRetryAfter(res.headers.get('retry-after') ?? undefined);
  return ms === null ? null : ms / 1000;
}

const BASE = '/api/v1';

async function parse<T>(res: Response): Promise<T> {
  const type = res.headers.get('content-type') ?? '';
  const body: unknown = type.includes('json') ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) {
    const b = (body ?? {}) as { code?: string; message?: string };
    throw new ApiError(res.status, b.code ?? `HTTP_${res.status}`, b.message ?? `${res.status} ${res.statusText}`, retryAfter(res));
  }
  return body as T;
}

async function call<T>(method: string, path: string, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(BASE + path, { method, ...init });
  } catch (err) {
    throw new ApiError(0, 'NETWORK', `cannot reach the daemon: ${(err as Error).message}`);
  }
  return parse<T>(res);
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  del: <T>(path: string) => call<T>('DELETE', path),
  json: <T>(method: 'POST' | 'PUT', path: string, body: unknown) => call<T>(method, path, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  form: <T>(path: string, form: FormData) => call<T>('POST', path, { body: form }),
  /** Raw fetch for binary answers (snapshots); errors are parsed like any other. */
  blob: async (path: string): Promise<Blob> => {
    const res = await fetch(BASE + path, { cache: 'no-store' });
    if (!res.ok) await parse(res);
    return res.blob();
  },
  /**
   * GET of an endpoint this daemon may not have (added by a later version): answers null
   * when the OpenAPI document does not list it, so the browser never logs a 404 for it.
   */
  optional: async <T>(path: string, template: string): Promise<T | null> => {
    if (!(await routes()).has(BASE + template)) return null;
    return call<T>('GET', path);
  },
};

let routeList: Promise<Set<string>> | undefined;
/** The paths the daemon documents at /docs/json (read once per page load). */
function routes(): Promise<Set<string>> {
  routeList ??= fetch('/docs/json')
    .then((r) => r.json() as Promise<{ paths?: Record<string, unknown> }>)
    .then((d) => new Set(Object.keys(d.paths ?? {})))
    .catch(() => new Set<string>());
  return routeList;
}

export async function apiVersion(): Promise<string> {
  const doc = (await fetch('/docs/json').then((r) => r.json())) as { info?: { version?: string } };
  return doc.info?.version ?? 'unknown';
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

// ---- shapes of the answers the pages read (the spec's fields plus Vigil's documented extras) ----

export interface Health {
  healthy: boolean;
  modules: Record<string, boolean>;
  details: Record<string, string>;
}
export interface ModelFile {
  name: string;
  file: string;
  loaded: boolean;
  reason?: string;
  provider?: string;
  license: string;
}
export interface Component {
  name: string;
  module: string;
  loaded: boolean;
  reason?: string;
  models?: ModelFile[];
}
export interface Camera {
  camera_id: string;
  source: string;
  is_running: boolean;
  fps: number;
  frame_count: number;
  status?: string;
  last_error?: string | null;
  processed_fps?: number;
}
export type Pt = [number, number];
export interface LineRule {
  rule_id: string;
  type: 'line';
  name: string;
  points: Pt[];
  in_label: string;
  out_label: string;
  hysteresis: number;
  counts: { in: number; out: number };
}
export interface ZoneRule {
  rule_id: string;
  type: 'zone';
  name: string;
  points: Pt[];
  hysteresis: number;
  counts: { entered: number; exited: number; occupancy: number };
}
export type Rule = LineRule | ZoneRule;
export interface Counts {
  camera_id: string;
  tracking: boolean;
  tracking_detail: string;
  lines: { rule_id: string; name: string; in_label: string; out_label: string; in: number; out: number }[];
  zones: { rule_id: string; name: string; entered: number; exited: number; occupancy: number }[];
}
export interface VigilEvent {
  id: string;
  type: string;
  timestamp: string;
  source: string;
  data: Record<string, unknown>;
  camera_id: string | null;
}
export interface Webhook {
  id: string;
  url: string;
  event_types: string[];
  created_at: string;
  enabled?: boolean;
}
export interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  created_at: string;
  last_status_code: number | null;
  last_error: string | null;
}
export interface Detection {
  bbox: [number, number, number, number];
  confidence: number;
  landmarks: Pt[];
}
export interface FaceResult {
  detection: Detection;
  quality: { overall_score: number; is_acceptable: boolean } | null;
}
export interface WatchlistMember {
  identity_id: string;
  label: string;
  samples: number;
  enrolled_at: string;
  updated_at: string;
}

// The daemon's own list (a pure module, bundled into the page), so the two cannot drift apart.
export { EVENT_TYPES } from '../core/event-types.js';
