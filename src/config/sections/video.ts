import { Type } from 'typebox';

export const VideoSection = Type.Object(
  {
    enabled: Type.Boolean({ default: false, description: 'Serve camera streams.' }),
    max_fps: Type.Number({ default: 30.0, exclusiveMinimum: 0, description: 'Maximum processing frames per second per camera.' }),
    track_faces: Type.Boolean({ default: true, description: 'Run face detection on camera frames.' }),
    buffer_size: Type.Integer({ default: 10, minimum: 1, description: 'Frames kept per camera.' }),
    face_fps: Type.Number({
      default: 2,
      exclusiveMinimum: 0,
      description: 'With track_faces: frames per second per camera that go through face detection (a face costs more than a person; this bounds the load).',
    }),
    face_match_threshold: Type.Number({
      default: 0.4,
      minimum: 0,
      maximum: 1,
      description: 'With track_faces and watchlists: calibrated similarity at which a face on a frame matches an enrolled identity (the /identify default).',
    }),
    max_cameras: Type.Integer({ default: 16, minimum: 1, description: 'Most cameras the daemon accepts (each one is an ffmpeg process).' }),
    watchdog_seconds: Type.Number({
      default: 10,
      exclusiveMinimum: 0,
      description: 'A camera that delivers no frame for this long (also after a start) is restarted.',
    }),
    decode_threads: Type.Integer({
      default: 1,
      minimum: 0,
      maximum: 16,
      description:
        "Threads of each camera's software decoder (ffmpeg -threads; not used where the hw-profile decodes on hardware). One thread decodes a 720p or 1080p camera in real time at less CPU than ffmpeg's default of one per core, and the cameras share the cores anyway; raise it for a 4K camera on a box without hardware decode. 0: ffmpeg chooses.",
    }),
    rtsp_timeout_seconds: Type.Number({ default: 5, exclusiveMinimum: 0, description: 'RTSP socket I/O timeout handed to ffmpeg.' }),
    restart_backoff_initial_seconds: Type.Number({ default: 1, exclusiveMinimum: 0, description: 'First delay before restarting a failed stream; doubles per failure.' }),
    restart_backoff_max_seconds: Type.Number({ default: 30, exclusiveMinimum: 0, description: 'Cap of the restart delay.' }),
    max_restarts: Type.Integer({
      default: 10,
      minimum: 1,
      description: 'Restart intensity: more restarts than this within restart_window_seconds and the camera is marked failed (system_error).',
    }),
    restart_window_seconds: Type.Number({ default: 300, exclusiveMinimum: 0, description: 'Window of the restart intensity limit.' }),
    failed_retry_seconds: Type.Number({
      default: 300,
      minimum: 0,
      description: 'A failed camera tries again after this long (0: stays failed until it is removed and added again).',
    }),
    count_history_days: Type.Integer({
      default: 90,
      minimum: 1,
      description: 'Days the 15-minute count buckets (counts/history) are kept; older ones are deleted.',
    }),
    file_roots: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Folders file camera sources may come from (symlinks and .. are resolved before the check); relative entries resolve against server.data_dir; empty means <data_dir>/media. Env: comma-separated or a JSON list.',
    }),
    stop_timeout_seconds: Type.Number({
      default: 2,
      exclusiveMinimum: 0,
      description: "Each step of the stop ladder (ffmpeg's q, then SIGTERM, then SIGKILL) waits this long.",
    }),
  },
  { additionalProperties: false, default: {} },
);
