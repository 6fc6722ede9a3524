import { Type } from 'typebox';

export const VideoSection = Type.Object(
  {
    enabled: Type.Boolean({ default: false, description: 'Serve camera streams.' }),
    max_fps: Type.Number({ default: 30.0, exclusiveMinimum: 0, description: 'Maximum processing frames per second per camera.' }),
    track_faces: Type.Boolean({ default: true, description: 'Run face detection on camera frames.' }),
    buffer_size: Type.Integer({ default: 10, minimum: 1, description: 'Frames kept per camera.' }),
  },
  { additionalProperties: false, default: {} },
);
