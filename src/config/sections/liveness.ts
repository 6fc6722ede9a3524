import { Type } from 'typebox';

export const LivenessSection = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Serve active liveness sessions.' }),
    session_ttl: Type.Integer({ default: 300, minimum: 1, description: 'Seconds a session lives before it expires.' }),
    num_challenges: Type.Integer({ default: 3, minimum: 1, maximum: 7, description: 'Default challenges per session.' }),
    timeout_seconds: Type.Number({ default: 5.0, minimum: 0.5, maximum: 60, description: 'Default time allowed per challenge, in seconds.' }),
    min_challenges: Type.Integer({
      default: 3,
      minimum: 1,
      maximum: 7,
      description: 'Fewest challenges a session gets, whatever num_challenges the client asks for (a smaller request is raised to this).',
    }),
    min_head_challenges: Type.Integer({
      default: 1,
      minimum: 0,
      maximum: 4,
      description:
        "Fewest head movements (turn or look) among a session's challenges: they are the ones a flat picture cannot perform, because the head's outline must move (0 lets a session be expressions only).",
    }),
    max_timeout_seconds: Type.Number({
      default: 10,
      minimum: 0.5,
      maximum: 60,
      description: 'Longest time per challenge a client may ask for (a longer timeout_seconds is lowered to this).',
    }),
    max_frames_per_challenge: Type.Integer({
      default: 150,
      minimum: 2,
      description: 'Frames judged against one challenge before the session fails (frame_limit; 150 is 5 s of a 30 fps camera): an attacker cannot try edits without end.',
    }),
    max_rejected_frames: Type.Integer({
      default: 3,
      minimum: 1,
      description: 'Frames rejected by the capture checks (static image, implausible timing, broken capture) after which the session fails.',
    }),
    min_frame_interval_ms: Type.Number({
      default: 25,
      minimum: 0,
      description: 'Frames closer together than this (by arrival) are rejected as implausible timing: no camera client sends faster than ~40 fps.',
    }),
    min_action_ms: Type.Number({
      default: 150,
      minimum: 0,
      description: "A challenge passes only if its completing frame arrived at least this long after the challenge's first neutral frame (no person turns or smiles faster).",
    }),
    turn_degrees: Type.Number({
      default: 20,
      minimum: 5,
      maximum: 60,
      description: 'Head-turn challenges pass when the yaw moves this many degrees from the baseline frame, ending turned to the asked side.',
    }),
    look_degrees: Type.Number({
      default: 12,
      minimum: 5,
      maximum: 60,
      description: 'Look-up/down challenges pass when the pitch moves this many degrees from the baseline frame (people nod 15-18 degrees; a 10 fps client sees 1-3 fewer).',
    }),
    same_person_threshold: Type.Number({
      default: 0.2,
      minimum: 0,
      maximum: 1,
      description: 'A frame whose face similarity to the first frame (face service scale, as /verify) falls below this fails the session (face_changed).',
    }),
    max_sessions: Type.Integer({ default: 1000, minimum: 1, description: 'Sessions held in memory at once; more answer 503 SESSION_CAPACITY.' }),
    abuse_window_seconds: Type.Integer({ default: 900, minimum: 1, description: 'Sliding window of the per-client-address limits, in seconds.' }),
    abuse_max_sessions: Type.Integer({ default: 60, minimum: 0, description: 'Sessions one client address may create per window; 0 turns the limit off.' }),
    abuse_max_failures: Type.Integer({
      default: 10,
      minimum: 0,
      description: 'Failed or abandoned sessions per window after which a client address may create none; 0 turns the limit off.',
    }),
  },
  { additionalProperties: false, default: {} },
);
