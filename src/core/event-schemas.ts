import { Type, type TSchema } from 'typebox';
import type { EventType } from './event-types.js';

// The registry of the ten event types: which module emits each, when, and the schema of its
// `data`. The OpenAPI document carries these schemas (components and the webhook callback),
// docs/events.md's event table is generated from this list (scripts/doc-tables.ts), and a
// test checks real events against them. The emitters' TypeScript interfaces are
// face/face-events.ts, identity (MatchEventData), liveness/liveness-events.ts,
// document/document-events.ts and video/counting/camera-counting.ts.

const Nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const Bbox = Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description: '[x1, y1, x2, y2] in pixels' });

const FaceDetectedData = Type.Object(
  {
    origin: Type.Union([Type.Literal('detect'), Type.Literal('verify'), Type.Literal('camera')]),
    count: Type.Integer({ minimum: 1 }),
    faces: Type.Array(
      Type.Object({
        bbox: Bbox,
        confidence: Type.Number(),
        face_size: Type.Number(),
        is_live: Nullable(Type.Boolean()),
        track_id: Type.Optional(Nullable(Type.Integer({ description: 'camera: the person track holding the face (null: none)' }))),
      }),
    ),
    frame_width: Type.Optional(Type.Integer({ description: 'camera: processed frame size' })),
    frame_height: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

const MatchData = Type.Object(
  {
    identity_id: Type.String(),
    label: Type.String(),
    similarity: Type.Number({ minimum: 0, maximum: 1, description: 'Calibrated similarity (the /verify scale)' }),
    watchlist: Type.String(),
  },
  { additionalProperties: false, description: 'Exactly these four fields (spec rule 3)' },
);

const Challenges = Type.Array(Type.String({ description: 'TURN_LEFT, TURN_RIGHT, LOOK_UP, LOOK_DOWN, BLINK, SMILE or OPEN_MOUTH' }));
const LivenessData = Type.Object(
  {
    session_id: Type.String(),
    challenges: Challenges,
    passed_challenges: Challenges,
    reason: Nullable(Type.Union([Type.Literal('challenge_timeout'), Type.Literal('spoof_detected'), Type.Literal('face_changed')])),
    failed_challenge: Nullable(Type.String()),
    score: Nullable(Type.Number({ description: 'face_changed: the similarity; spoof_detected: the passive-liveness score' })),
    frames: Type.Integer({ minimum: 0 }),
    duration_seconds: Type.Number({ minimum: 0 }),
    client_address: Type.String(),
  },
  { additionalProperties: false },
);

const DocumentScannedData = Type.Object(
  {
    detected: Type.Boolean(),
    has_face: Type.Boolean(),
    has_mrz: Type.Boolean(),
    mrz_type: Nullable(Type.String()),
    document_kind: Nullable(Type.String({ description: 'First letter of the document code: P, I, A, C, V' })),
    issuing_country: Nullable(Type.String()),
    check_digits_valid: Nullable(Type.Boolean()),
    expired: Nullable(Type.Boolean()),
    ocr_lines: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false, description: 'No personal data: no names, numbers, dates of birth or text' },
);

const ZoneData = Type.Object(
  {
    rule_id: Type.String(),
    rule_name: Type.String(),
    track_id: Type.Integer(),
    how: Type.Union([Type.Literal('crossed'), Type.Literal('appeared'), Type.Literal('lost')]),
    counts: Type.Object({ entered: Type.Integer(), exited: Type.Integer(), occupancy: Type.Integer() }),
  },
  { additionalProperties: false },
);

const LineCrossedData = Type.Object(
  {
    rule_id: Type.String(),
    rule_name: Type.String(),
    track_id: Type.Integer(),
    direction: Type.Union([Type.Literal('in'), Type.Literal('out')]),
    direction_label: Type.String(),
    counts: Type.Object({ in: Type.Integer(), out: Type.Integer() }),
  },
  { additionalProperties: false },
);

const SystemErrorData = Type.Object(
  {
    module: Type.String({ description: 'video, person, events ...' }),
    message: Type.String(),
    camera_id: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export interface EventTypeInfo {
  /** The `source` of the events (the producing module). */
  source: string;
  when: string;
  data: TSchema;
}

export const EVENT_TYPE_INFO: Record<EventType, EventTypeInfo> = {
  face_detected: { source: 'face, video', when: 'a /detect that finds a face, a successful /verify, a person track on a camera first showing a face', data: FaceDetectedData },
  face_matched: { source: 'identity', when: 'every /identify (or /identify/track decision, or camera face) match at or above its threshold', data: MatchData },
  watchlist_alert: { source: 'identity', when: "a match at or above the watchlist's alert threshold (`identity.alert_threshold(s)`)", data: MatchData },
  liveness_passed: { source: 'liveness', when: 'an active liveness session completes', data: LivenessData },
  liveness_failed: { source: 'liveness', when: 'a session fails (timeout, spoof, face changed; not on expiry or cancel)', data: LivenessData },
  document_scanned: { source: 'document', when: 'every /documents/scan', data: DocumentScannedData },
  person_entered: { source: 'video', when: 'a tracked person enters a zone (crosses in or appears inside)', data: ZoneData },
  person_exited: { source: 'video', when: 'a tracked person leaves a zone (crosses out or their track ends inside)', data: ZoneData },
  line_crossed: { source: 'video', when: 'a tracked person crosses a counting line', data: LineCrossedData },
  system_error: { source: 'video, person', when: 'a camera gives up after its restarts, person detection fails (once a minute per camera)', data: SystemErrorData },
};

/** The `data` of a webhook test delivery (POST .../test): not a real event of its type. */
export const TestDeliveryDataSchema = Type.Object(
  { test: Type.Literal(true), message: Type.String() },
  { additionalProperties: true, description: 'Test delivery; face_matched and watchlist_alert add placeholder identity_id, label, similarity, watchlist' },
);

/** A whole test delivery as a webhook receives it (source events, never in the history). */
export const TestDeliveryEventSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    type: Type.String({ description: "One of the webhook's subscribed types" }),
    timestamp: Type.String({ format: 'date-time' }),
    source: Type.Literal('events'),
    data: TestDeliveryDataSchema,
    camera_id: Type.Null(),
  },
  { additionalProperties: false, description: 'A test delivery (POST .../test): data.test is true' },
);

/** The spec's Event object for one type, with that type's payload. */
export function eventSchemaOf(type: EventType, data: TSchema = EVENT_TYPE_INFO[type].data): TSchema {
  return Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      type: Type.Literal(type),
      timestamp: Type.String({ format: 'date-time' }),
      source: Type.String(),
      data,
      camera_id: Nullable(Type.String()),
    },
    { additionalProperties: false },
  );
}
