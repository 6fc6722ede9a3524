import { Type } from 'typebox';

export const PersonSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Load the person detector and tracker.' }),
    model_path: Type.String({ default: '', description: 'Person detector ONNX file; empty means models/person_det_yolox_nano_416.onnx.' }),
    confidence_threshold: Type.Number({ default: 0.5, minimum: 0, maximum: 1, description: 'Person detection score threshold.' }),
  },
  { additionalProperties: false, default: {} },
);
