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
    log_level: Type.Union([Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent')], {
      default: 'info',
      description: 'pino log level (env VIGIL_LOG_LEVEL).',
    }),
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
    headers_timeout_ms: Type.Integer({
      default: 10_000,
      minimum: 100,
      description: 'Time a client has to send the request line and headers; a header trickle past it answers 408 REQUEST_TIMEOUT.',
    }),
    request_timeout_ms: Type.Integer({
      default: 120_000,
      minimum: 1_000,
      description: 'Time a client has to send the whole request, body included (a 20 MB upload at 2 Mbit/s takes 80 s); past it 408 REQUEST_TIMEOUT.',
    }),
    idle_timeout_ms: Type.Integer({
      default: 60_000,
      minimum: 1_000,
      description: 'A connection with no traffic either way for this long is closed (a body that stops arriving, a client that stops reading).',
    }),
    keep_alive_timeout_ms: Type.Integer({
      default: 5_000,
      minimum: 100,
      description: 'How long an idle keep-alive connection is kept open between requests.',
    }),
    tls_cert_file: Type.String({ default: '', description: 'PEM certificate chain; with tls_key_file the API is served over HTTPS only. Empty: plain HTTP.' }),
    tls_key_file: Type.String({ default: '', description: 'PEM private key of tls_cert_file.' }),
    storage_reserve_mb: Type.Integer({
      default: 64,
      minimum: 0,
      description:
        "Free space kept on the data folder's file system: below it every write answers 507 STORAGE_FULL (nothing is written, reads keep working) and writes resume by themselves when space returns.",
    }),
    shutdown_timeout_ms: Type.Integer({
      default: 10_000,
      minimum: 100,
      description: 'How long SIGTERM waits for in-flight requests and modules before the process exits anyway.',
    }),
  },
  { additionalProperties: false, default: {} },
);
