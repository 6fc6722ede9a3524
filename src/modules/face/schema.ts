import { Type, type Static } from 'typebox';

/** Element of quality.reasons (the spec leaves the shape open; this is Vigil's). */
export const QualityReasonSchema = Type.Object(
  {
    // Spelled out (not mapped over an array) so the static type keeps the literals instead of `never`.
    code: Type.Union(
      [
        Type.Literal('FACE_TOO_SMALL'),
        Type.Literal('BLURRY'),
        Type.Literal('TOO_DARK'),
        Type.Literal('TOO_BRIGHT'),
        Type.Literal('LOW_CONTRAST'),
        Type.Literal('HEAD_POSE'),
        Type.Literal('LOW_QUALITY_SCORE'),
      ],
      { description: 'Stable reason code' },
    ),
    message: Type.String(),
    value: Type.Number({ description: 'The measured value (same unit as the quality field it concerns; degrees for HEAD_POSE)' }),
    threshold: Type.Number({ description: 'The limit it missed' }),
  },
  { additionalProperties: false },
);

/** The spec's quality object. */
export const QualitySchema = Type.Object(
  {
    overall_score: Type.Number({ minimum: 0, maximum: 100, description: 'Weighted geometric mean of the sub-scores, 0-100' }),
    face_size_px: Type.Number({ description: 'sqrt(bbox width x height) in pixels' }),
    sharpness: Type.Number({ minimum: 0, maximum: 1, description: 'Laplacian variance of the aligned face / 500, clipped to 0..1' }),
    brightness: Type.Number({ minimum: 0, maximum: 1, description: 'Mean luma of the aligned face / 255' }),
    contrast: Type.Number({ minimum: 0, maximum: 1, description: 'Luma standard deviation of the aligned face / 127.5' }),
    head_pose_ok: Type.Boolean({ description: 'Yaw within 30, pitch within 25, roll within 30 degrees (estimated from the 5 landmarks)' }),
    is_acceptable: Type.Boolean({ description: 'overall_score >= face.quality_gate' }),
    reasons: Type.Array(QualityReasonSchema, { description: 'Empty when acceptable' }),
  },
  { additionalProperties: false },
);

export const FaceDetectionSchema = Type.Object(
  {
    // Unsafe only narrows the static type to the tuple the JSON Schema already pins (min = max = 4 items);
    // the emitted schema stays a plain array, as the OpenAPI document has always shown it.
    bbox: Type.Unsafe<[number, number, number, number]>(Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description: '[x1, y1, x2, y2] in pixels of the upright (EXIF-applied) image' })),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    face_size: Type.Number({ description: 'sqrt(bbox width x height) in pixels' }),
    landmarks: Type.Array(Type.Unsafe<[number, number]>(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 })), {
      description: '5 points: left eye, right eye (as seen in the image), nose tip, mouth left, mouth right; may be empty (document verify)',
    }),
  },
  { additionalProperties: false },
);

export const FaceResultSchema = Type.Object(
  {
    detection: FaceDetectionSchema,
    quality: Type.Union([QualitySchema, Type.Null()]),
    demographics: Type.Union([Type.Object({ age: Type.Integer(), gender: Type.Union([Type.Literal('M'), Type.Literal('F')]) }, { additionalProperties: false }), Type.Null()]),
    liveness: Type.Union([
      Type.Object({ is_live: Type.Boolean(), score: Type.Number({ minimum: 0, maximum: 1, description: 'Fused MiniFASNet real-face probability' }) }, { additionalProperties: false }),
      Type.Null(),
    ]),
    has_embedding: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const DetectResponseSchema = Type.Object({ faces: Type.Array(FaceResultSchema, { description: 'Largest face first' }), count: Type.Integer() }, { additionalProperties: false });

export const VerifyResponseSchema = Type.Object(
  {
    is_match: Type.Boolean({ description: 'similarity >= threshold' }),
    similarity: Type.Number({ minimum: 0, maximum: 1, description: 'Calibrated similarity on the spec threshold scale' }),
    face1: FaceResultSchema,
    face2: FaceResultSchema,
  },
  { additionalProperties: false },
);

export type FaceResultBody = Static<typeof FaceResultSchema>;
