import { Type } from 'typebox';

export const FaceSection = Type.Object(
  {
    models_dir: Type.String({ default: '', description: 'Folder of the ONNX model files; empty means the models/ folder of the installation.' }),
    ctx_id: Type.Integer({ default: 0, minimum: -1, description: 'GPU device id used by GPU execution providers; -1 forces the CPU for face models.' }),
    det_thresh: Type.Number({
      default: 0.5,
      minimum: 0,
      maximum: 1,
      description: "Face detection score threshold on the detector's own score. YuNet's is sqrt(cls*obj): on the shared test data its false faces score up to 0.72 and its real faces 0.90 or more.",
    }),
    det_size: Type.Tuple([Type.Integer({ minimum: 32 }), Type.Integer({ minimum: 32 })], {
      default: [640, 640],
      description: 'Largest detector input [width, height]: larger images are scaled down to fit, smaller ones run at their own size (padded to multiples of 32), never enlarged.',
    }),
    edge_pad: Type.Number({
      default: 0,
      minimum: 0,
      maximum: 0.5,
      description:
        'Black margin added around the detector input, as a fraction of each side, for faces cut by the frame edge: 0.1 finds more faces that are 40-50% outside the frame, for about 1.4x the detector time (docs/accuracy.md).',
    }),
    max_faces: Type.Integer({ default: 10, minimum: 1, description: 'Most faces returned per image (largest first).' }),
    enable_liveness: Type.Boolean({ default: true, description: 'Run passive liveness (MiniFASNet) on detected faces.' }),
    enable_demographics: Type.Boolean({ default: true, description: 'Estimate age and gender when a demographics model is loaded.' }),
    enable_quality: Type.Boolean({ default: true, description: 'Compute the quality object for detected faces.' }),
    quality_gate: Type.Number({ default: 30.0, minimum: 0, maximum: 100, description: 'Minimum overall quality score (0-100) for is_acceptable.' }),
    detector: Type.Union([Type.Literal('scrfd_500m'), Type.Literal('scrfd_2.5g'), Type.Literal('yunet')], {
      default: 'scrfd_500m',
      description: 'Face detector model.',
    }),
    profile: Type.Union([Type.Literal('default'), Type.Literal('commercial')], {
      default: 'default',
      description:
        "commercial: only models whose weights are licensed for commercial use (YuNet, dlib's ResNet recognizer aligned on MediaPipe landmarks, MiniFASNet; no demographics); fills detector, recognizer, det_thresh (0.9) and enable_demographics (false) when unset and refuses non-cleared choices. /api/v1/admin/models shows each model's licence.",
    }),
    recognizer: Type.Union([Type.Literal('mobilefacenet_128d'), Type.Literal('faceplugin_512d'), Type.Literal('dlib_resnet_128d')], {
      default: 'faceplugin_512d',
      description: 'Face embedding model (faceplugin_512d separates the shared identities best: docs/accuracy.md).',
    }),
  },
  { additionalProperties: false, default: {} },
);
