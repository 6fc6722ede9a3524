/**
 * Every error code Vigil answers with, its HTTP status and when. AppError takes only these
 * codes (the type below), so a new code cannot be thrown before it is registered here; the
 * error table of docs/api.md is generated from this list (scripts/doc-tables.ts) and a test
 * keeps the two in step. Order: general codes first, then by module.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, module: 'all', when: "a path parameter, query or JSON body breaks the route's schema" },
  INVALID_BODY: { status: 400, module: 'all', when: 'an empty or malformed JSON body, or a wrong Content-Length' },
  MISSING_FIELD: { status: 400, module: 'all', when: 'a required multipart field is absent (the message names it)' },
  INVALID_FIELD: { status: 400, module: 'all', when: 'a form field is out of range, not a number or malformed (`field` names it)' },
  INVALID_IMAGE: { status: 400, module: 'all', when: 'an empty, truncated or corrupt image' },
  INVALID_MULTIPART: { status: 400, module: 'all', when: 'a malformed multipart body (cut short, bad part header)' },
  ROUTE_NOT_FOUND: { status: 404, module: 'all', when: 'no such endpoint' },
  FILE_TOO_LARGE: { status: 413, module: 'all', when: 'an upload over `server.max_upload_bytes` (20 MB)' },
  IMAGE_TOO_LARGE: { status: 413, module: 'all', when: 'an image over `server.max_image_pixels` (40 MP; checked from the header, before decoding, against decompression bombs)' },
  BODY_TOO_LARGE: { status: 413, module: 'all', when: 'a JSON body over 1 MiB' },
  TOO_MANY_FILES: { status: 413, module: 'all', when: 'a multipart body with more than 4 files' },
  TOO_MANY_FIELDS: { status: 413, module: 'all', when: 'a multipart body with more than 20 fields' },
  TOO_MANY_PARTS: { status: 413, module: 'all', when: 'a multipart body with more than 30 parts' },
  NOT_MULTIPART: { status: 400, module: 'all', when: 'an upload endpoint called without a multipart/form-data body' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, module: 'all', when: 'a body in a content type the endpoint does not take' },
  UNSUPPORTED_IMAGE_TYPE: {
    status: 415,
    module: 'all',
    when: 'a file that is not JPEG, PNG, WebP, AVIF, GIF, TIFF or BMP (by its bytes, not its name); an HEVC-coded HEIC is named as undecodable by this build',
  },
  INTERNAL_ERROR: { status: 500, module: 'all', when: 'a bug; the body hides internals, the log keeps them' },
  MODEL_UNAVAILABLE: { status: 503, module: 'all', when: 'the model the request needs is not loaded (the message and `/admin/models` say why)' },
  INFERENCE_UNAVAILABLE: { status: 503, module: 'all', when: 'the inference worker died; it is restarted on the next request' },
  MODULE_DISABLED: { status: 503, module: 'all', when: 'the module is switched off in the configuration (`<module>.enabled: false`)' },
  UNAUTHORIZED: { status: 401, module: 'all', when: 'only with `auth.tokens` set: no valid bearer token ([security.md](security.md))' },
  FORBIDDEN: { status: 403, module: 'all', when: "only with `auth.tokens` set: the token's scope is too low for the endpoint" },
  REQUEST_TIMEOUT: { status: 408, module: 'all', when: 'headers or body not received within `server.headers_timeout_ms` / `server.request_timeout_ms`' },
  FIELD_TOO_LARGE: { status: 413, module: 'all', when: 'a multipart text field over 64 KB (refused, never cut)' },
  JPEG_TOO_COMPLEX: { status: 413, module: 'all', when: 'a progressive JPEG with more scans than `limits.max_jpeg_scans` (its decode cost grows with each scan)' },
  MALFORMED_REQUEST: { status: 400, module: 'all', when: 'a request that is not valid HTTP/1.1 (protocol level, same error shape)' },
  INVALID_CHUNKED_BODY: { status: 400, module: 'all', when: 'a malformed chunked request body (protocol level)' },
  BAD_REQUEST: { status: 400, module: 'all', when: 'any other request fastify refuses before routing (protocol level)' },
  BAD_URL: { status: 400, module: 'all', when: 'a URL that cannot be decoded' },
  URL_TOO_LONG: { status: 414, module: 'all', when: "a request URL over the server's limit (protocol level)" },
  HEADERS_TOO_LARGE: { status: 431, module: 'all', when: "request line and headers over the server's limit (protocol level)" },
  BUSY: { status: 503, module: 'all', when: "the endpoint class's inference queue is full (`limits.*`); the answer carries `Retry-After`" },
  STORAGE_FULL: {
    status: 507,
    module: 'all',
    when: "a write while the data folder's free space is under `server.storage_reserve_mb` (nothing written; reads keep working; writes resume by themselves)",
  },
  DASHBOARD_NOT_BUILT: { status: 503, module: 'all', when: '`GET /` on an installation whose dashboard was never built (`npm run build`)' },

  NO_FACE: { status: 422, module: 'face', when: 'no face in an image that needs one (`field` names it)' },

  WATCHLIST_NOT_FOUND: { status: 404, module: 'identity', when: 'a watchlist that was never enrolled into (`default` always exists)' },
  IDENTITY_NOT_FOUND: { status: 404, module: 'identity', when: 'an unknown `identity_id`' },
  CLUSTER_NOT_FOUND: { status: 404, module: 'identity', when: 'an unknown or dropped provisional cluster' },
  IDENTITY_IN_OTHER_WATCHLIST: { status: 409, module: 'identity', when: 'enrolling an `identity_id` that belongs to another watchlist' },
  LOW_QUALITY: { status: 422, module: 'identity', when: 'enrolment of a face below `face.quality_gate` (the body carries `reasons` and `quality`)' },
  IDENTITY_UNAVAILABLE: { status: 503, module: 'identity', when: 'the watchlist database is not open (`/admin/health` says why)' },

  NO_MRZ: { status: 422, module: 'document', when: '`/documents/mrz` on an image without a readable machine-readable zone' },
  FEATURE_DISABLED: { status: 503, module: 'document', when: '`/ocr`, `/mrz` or `/verify` with `document.enable_ocr`, `enable_mrz` or `enable_face_extraction` off' },
  FACE_UNAVAILABLE: { status: 503, module: 'document', when: 'document portraits asked for while the face module is not running' },

  SESSION_NOT_FOUND: { status: 404, module: 'liveness', when: 'an unknown, cancelled, or long-expired liveness session' },
  SESSION_ENDED: { status: 409, module: 'liveness', when: 'a frame for a session that is completed, failed or expired (`state` names which)' },
  MULTIPLE_FACES: { status: 422, module: 'liveness', when: 'a second face at least half the size of the largest in a liveness frame' },
  FACE_NOT_MEASURABLE: { status: 422, module: 'liveness', when: "the landmark model does not find the face in the detector's box (profile, occlusion, tiny face)" },
  FRAME_QUEUE_FULL: { status: 429, module: 'liveness', when: 'more than 4 frames of one session waiting' },
  TOO_MANY_SESSIONS: { status: 429, module: 'liveness', when: 'a client address created `liveness.abuse_max_sessions` sessions in the window (`Retry-After` set)' },
  TOO_MANY_FAILURES: { status: 429, module: 'liveness', when: 'a client address failed `liveness.abuse_max_failures` sessions in the window (`Retry-After` set)' },
  SESSION_CAPACITY: { status: 503, module: 'liveness', when: '`liveness.max_sessions` sessions are held at once' },
  LIVENESS_UNAVAILABLE: { status: 503, module: 'liveness', when: 'the abuse counters could not be opened (data folder not writable)' },

  INVALID_SOURCE: { status: 400, module: 'video', when: 'a camera source that is a relative path, starts with `-`, holds control characters or names a device over 63' },
  UNSUPPORTED_SOURCE: { status: 400, module: 'video', when: 'a camera source of another scheme (`http:`, `file:`, `concat:` ...)' },
  INVALID_COMMAND: { status: 400, module: 'video', when: 'an MQTT command whose payload the topic does not take (the enable switch takes ON or OFF); answered on `<prefix>/commands/result`' },
  INVALID_ID: { status: 400, module: 'video', when: 'a `camera_id` or `rule_id` that is not 1-64 of letters, digits, `_ . -`' },
  INVALID_POINTS: { status: 400, module: 'video', when: 'rule points outside 0..1, degenerate or self-crossing' },
  INVALID_RANGE: { status: 400, module: 'video', when: 'count history `from`/`to` that is not an ISO 8601 time, or `from` not before `to`' },
  SOURCE_OUTSIDE_ROOTS: { status: 403, module: 'video', when: 'a file camera source outside `video.file_roots` (symlinks resolved), or a device other than `/dev/videoN`' },
  SOURCE_NOT_VIDEO: { status: 415, module: 'video', when: "a file camera source that ffmpeg's video demuxer whitelist cannot open as video (text, images, playlists)" },
  CAMERA_NOT_FOUND: { status: 404, module: 'video', when: 'an unknown `camera_id`' },
  NO_FRAME: { status: 404, module: 'video', when: 'a snapshot of a camera that has no frame yet' },
  RULE_NOT_FOUND: { status: 404, module: 'video', when: 'an unknown `rule_id` on that camera' },
  CAMERA_EXISTS: { status: 409, module: 'video', when: 'adding a `camera_id` that exists' },
  RULE_EXISTS: { status: 409, module: 'video', when: 'adding a `rule_id` the camera already has' },
  CAMERA_LIMIT: { status: 422, module: 'video', when: 'adding a camera past `video.max_cameras`' },

  INVALID_URL: { status: 400, module: 'events', when: 'a webhook URL that is not `https://`' },
  INVALID_EVENT_TYPE: { status: 400, module: 'events', when: 'an event type outside the ten, or an empty list' },
  WEBHOOK_NOT_FOUND: { status: 404, module: 'events', when: 'an unknown `webhook_id`' },
  DELIVERY_NOT_FOUND: { status: 404, module: 'events', when: 'an unknown `delivery_id` of that webhook' },
  DELIVERY_PENDING: { status: 409, module: 'events', when: 'redelivering a delivery that is still being retried' },
  WEBHOOK_DISABLED: { status: 409, module: 'events', when: 'a test or redelivery to a webhook disabled by 410 Gone' },
  WEBHOOKS_DISABLED: { status: 503, module: 'events', when: 'webhook endpoints with `events.webhooks_enabled: false`' },
  EVENTS_UNAVAILABLE: { status: 503, module: 'events', when: 'the events store could not be opened' },
} as const satisfies Record<string, { status: number; module: string; when: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
