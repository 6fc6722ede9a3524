import { Type } from 'typebox';

export const PersonSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Load the person detector and tracker.' }),
    model_path: Type.String({ default: '', description: 'Person detector ONNX file; empty means models/person_det_yolox_nano_416.onnx.' }),
    confidence_threshold: Type.Number({
      default: 0.5,
      minimum: 0,
      maximum: 1,
      description:
        "Person detection score threshold: detections at or above it start and carry tracks (ByteTrack's high threshold); weaker ones down to 0.1 only keep existing tracks alive through occlusion.",
    }),
    detector_input: Type.Integer({
      default: 416,
      minimum: 0,
      maximum: 1280,
      multipleOf: 32,
      description:
        "Long side, in pixels, of the person detector's input. Frames are scaled to fit and fed at their own aspect, each side rounded up to a multiple of 32 (a 16:9 camera at 416 runs on 416x256, not a 416x416 square mostly padding). Larger finds smaller, farther people at a detector cost growing with the pixel count (docs/video.md, docs/benchmarks.md). 0: the model file's own fixed square input, letterboxed (needed for a person.model_path that cannot run at other sizes).",
    }),
    track_buffer_frames: Type.Integer({
      default: 30,
      minimum: 1,
      description: 'A lost track keeps its id this many processed frames, so a person hidden for a moment is not counted twice.',
    }),
    detector_concurrency: Type.Integer({
      default: 2,
      minimum: 1,
      maximum: 16,
      description:
        'Camera frames handed to the detector at once, across all cameras. Each inference worker runs one at a time, so with the default pool on a 2-core box two frames are detected at once.',
    }),
    detector_threads: Type.Integer({
      default: 1,
      minimum: 0,
      maximum: 64,
      description:
        "onnxruntime intra-op threads of the person detector's session; 0 takes the inference pool's share of the cores (hw-profile intra_op_threads). On the 2-vCPU box one thread ran YOLOX-nano faster and at half the CPU of two (docs/benchmarks.md).",
    }),
  },
  { additionalProperties: false, default: {} },
);
