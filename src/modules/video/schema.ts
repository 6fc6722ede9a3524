import { Type } from 'typebox';
import { literalUnion } from '../../core/literal-union.js';

const ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';

export const CameraIdParams = Type.Object({ camera_id: Type.String({ description: 'Camera id' }) });
export const RuleParams = Type.Object({ camera_id: Type.String(), rule_id: Type.String() });

export const CreateCameraBody = Type.Object(
  {
    camera_id: Type.String({ minLength: 1, maxLength: 64, description: `Unique id (${ID_PATTERN}).` }),
    source: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'rtsp:// or rtsps:// URL, absolute file path, or a v4l2 device index as a string ("0" is /dev/video0).',
    }),
    loop: Type.Optional(Type.Boolean({ description: 'File sources: start over at the end (default false: the camera ends).' })),
  },
  { additionalProperties: false },
);

export const CameraStatusSchema = literalUnion(['starting', 'running', 'restarting', 'failed', 'ended', 'stopped'], {
  description: 'starting, running, restarting (backoff after a failure), failed (restart limit hit), ended (file played out), stopped.',
});

export const CameraSchema = Type.Object({
  camera_id: Type.String(),
  source: Type.String({ description: 'The source; a password in an RTSP URL is shown as ***.' }),
  is_running: Type.Boolean({ description: 'True while the stream is starting (at most video.watchdog_seconds) or frames arrive.' }),
  fps: Type.Number({ description: 'Frames per second arriving from the source (after the max_fps limit), over the last 5 s.' }),
  frame_count: Type.Integer({ description: 'Frames captured since the camera was added (or the daemon started).' }),
  status: CameraStatusSchema,
  last_error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the camera is not running, or why it last failed while it restarts (credentials redacted); null once frames flow.',
  }),
  processed_fps: Type.Number({ description: 'Frames per second through person detection and tracking.' }),
  decoder: Type.String({ description: 'cpu, or the hardware decoder in use (cuda, vaapi, qsv, jetson).' }),
  loop: Type.Boolean(),
  enabled: Type.Boolean({ description: 'False while the camera is disabled (POST .../disable or the MQTT command): its stream is stopped until enabled.' }),
});

export const RemovedCamera = Type.Object({ removed: Type.String() });
export const RemovedRule = Type.Object({ removed: Type.String() });

const Point = Type.Array(Type.Number({ minimum: 0, maximum: 1 }), {
  minItems: 2,
  maxItems: 2,
  description: '[x, y] as fractions of the frame width and height; [0,0] is the top-left corner.',
});
const Hysteresis = Type.Number({
  minimum: 0,
  maximum: 0.2,
  description: 'Dead band around the line or zone edge, as a fraction of the frame diagonal (default 0.02): jitter inside it never counts.',
});
const RuleId = Type.String({ minLength: 1, maxLength: 64, description: `Optional id (${ID_PATTERN}); generated when omitted.` });

export const CreateLineBody = Type.Object(
  {
    rule_id: Type.Optional(RuleId),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    points: Type.Array(Point, { minItems: 2, maxItems: 2, description: 'The two ends of the counting line, A then B.' }),
    in_label: Type.Optional(Type.String({ maxLength: 100, description: 'Name of the "in" direction: crossing from the left of A->B to its right as the image is seen (default "in").' })),
    out_label: Type.Optional(Type.String({ maxLength: 100, description: 'Name of the opposite direction (default "out").' })),
    hysteresis: Type.Optional(Hysteresis),
  },
  { additionalProperties: false },
);

export const CreateZoneBody = Type.Object(
  {
    rule_id: Type.Optional(RuleId),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    points: Type.Array(Point, { minItems: 3, maxItems: 64, description: 'Polygon corners in order (not self-crossing).' }),
    hysteresis: Type.Optional(Hysteresis),
  },
  { additionalProperties: false },
);

const LineCountsSchema = Type.Object({ in: Type.Integer(), out: Type.Integer() });
const ZoneCountsSchema = Type.Object({
  entered: Type.Integer(),
  exited: Type.Integer(),
  occupancy: Type.Integer({ description: 'Tracked people inside now.' }),
});

export const LineSchema = Type.Object({
  rule_id: Type.String(),
  type: Type.Literal('line'),
  name: Type.String(),
  points: Type.Array(Type.Array(Type.Number())),
  in_label: Type.String(),
  out_label: Type.String(),
  hysteresis: Type.Number(),
  created_at: Type.String(),
  counts: LineCountsSchema,
});

export const ZoneSchema = Type.Object({
  rule_id: Type.String(),
  type: Type.Literal('zone'),
  name: Type.String(),
  points: Type.Array(Type.Array(Type.Number())),
  hysteresis: Type.Number(),
  created_at: Type.String(),
  counts: ZoneCountsSchema,
});

export const CountsResponse = Type.Object({
  camera_id: Type.String(),
  tracking: Type.Boolean({ description: 'False when person detection is unavailable: counts cannot move.' }),
  tracking_detail: Type.String(),
  lines: Type.Array(Type.Object({ rule_id: Type.String(), name: Type.String(), in_label: Type.String(), out_label: Type.String(), in: Type.Integer(), out: Type.Integer() })),
  zones: Type.Array(Type.Object({ rule_id: Type.String(), name: Type.String(), entered: Type.Integer(), exited: Type.Integer(), occupancy: Type.Integer() })),
});

export const ResetBody = Type.Object({ rule_id: Type.Optional(Type.String({ description: 'Reset only this rule (default: every rule of the camera).' })) }, { additionalProperties: false });

export const HistoryQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ description: 'Start (ISO 8601, inclusive); default 24 hours before `to`. Rounded down to the bucket.' })),
    to: Type.Optional(Type.String({ description: 'End (ISO 8601, exclusive); default now.' })),
    bucket: Type.Optional(Type.Union([Type.Literal('15m'), Type.Literal('1h'), Type.Literal('1d')], { default: '1h', description: 'Bucket size, UTC-aligned.' })),
    rule_id: Type.Optional(Type.String({ description: 'Only this line or zone.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, default: 500, description: 'Most rows per page (a bucket is never split: a page holds at least one whole bucket).' })),
  },
  { additionalProperties: false },
);

export const HistoryResponse = Type.Object({
  camera_id: Type.String(),
  bucket: Type.String(),
  from: Type.String(),
  to: Type.String(),
  rows: Type.Array(
    Type.Object({
      rule_id: Type.String(),
      type: Type.Union([Type.Literal('line'), Type.Literal('zone')]),
      start: Type.String({ description: 'Bucket start, ISO 8601 UTC' }),
      end: Type.String(),
      in: Type.Integer(),
      out: Type.Integer(),
      entered: Type.Integer(),
      exited: Type.Integer(),
      peak_occupancy: Type.Integer({ description: 'Most people inside the zone at once in the bucket (0 for lines)' }),
    }),
    { description: 'Buckets in which something was counted (or people were inside a zone), oldest first, rules by id within a bucket' },
  ),
  next_from: Type.Union([Type.String(), Type.Null()], { description: 'More rows: repeat the query with from set to this; null on the last page' }),
});
