import { Type } from 'typebox';

/** Process-level settings (not a spec module; not reported by /admin/config). */
export const ServerSection = Type.Object(
  {
    host: Type.String({ default: '0.0.0.0', description: 'Address to listen on (env VIGIL_HOST).' }),
    port: Type.Integer({ default: 8080, minimum: 0, maximum: 65535, description: 'TCP port (env VIGIL_PORT).' }),
    data_dir: Type.String({
      default: 'data',
      description: 'Folder for all persistent state; relative paths resolve against the working directory (env VIGIL_DATA_DIR).',
    }),
    model_mirror: Type.String({
      default: '',
      description: 'Folder holding model files to fetch from before the upstream URL (env VIGIL_MODEL_MIRROR).',
    }),
    log_level: Type.Union(
      [
        Type.Literal('fatal'),
        Type.Literal('error'),
        Type.Literal('warn'),
        Type.Literal('info'),
        Type.Literal('debug'),
        Type.Literal('trace'),
        Type.Literal('silent'),
      ],
      { default: 'info', description: 'pino log level (env VIGIL_LOG_LEVEL).' },
    ),
    hw_profile: Type.String({
      default: 'auto',
      description: 'Hardware profile name from hw-profiles/ (x86-cpu, x86-nvidia, jetson-orin, intel-vaapi) or auto to detect the box.',
    }),
    inference_workers: Type.Integer({
      default: 0,
      minimum: 0,
      maximum: 64,
      description:
        'Inference worker threads, each holding every model; runs go to whichever is free. 0 = one per CPU core, at most 4, each session getting its share of the cores as onnxruntime intra-op threads (hw-profile intra_op_threads).',
    }),
    max_upload_bytes: Type.Integer({
      default: 20 * 1024 * 1024,
      minimum: 1024,
      description: 'Largest accepted uploaded file in bytes; larger uploads answer 413 FILE_TOO_LARGE.',
    }),
    max_image_pixels: Type.Integer({
      default: 40_000_000,
      minimum: 1,
      description: 'Largest accepted decoded image (width x height); guards against decompression bombs (413 IMAGE_TOO_LARGE).',
    }),
    metrics: Type.Boolean({
      default: true,
      description: 'Serve Prometheus metrics at GET /metrics (docs/observability.md); false removes the route and the per-request timing.',
    }),
    shutdown_timeout_ms: Type.Integer({
      default: 10_000,
      minimum: 100,
      description: 'How long SIGTERM waits for in-flight requests and modules before the process exits anyway.',
    }),
  },
  { additionalProperties: false, default: {} },
);
