import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, errorText } from '../api.js';
import { Badge, Card, ErrorNote } from '../components.js';

interface Challenge {
  type: string;
  instruction: string;
  timeout_seconds: number;
}
interface FrameResult {
  challenge_type: string | null;
  passed: boolean;
  confidence: number;
  challenges_remaining: number;
  session_complete: boolean;
  is_live: boolean | null;
  state: string;
  /** Only GET /liveness/sessions/{id} carries these two; the page copies them in at the end. */
  liveness_score?: number | null;
  failure_reason?: string | null;
}

interface SessionInfo {
  state: string;
  current_challenge: string | null;
  challenges_remaining: number;
  session_complete: boolean;
  is_live: boolean | null;
  liveness_score?: number | null;
  failure_reason: string | null;
}

const ENDED = new Set(['completed', 'failed', 'expired']);
/** Longest wait between two frames that the daemon refused for load, whatever Retry-After says. */
const MAX_RETRY_WAIT_S = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long a camera just opened may take to show its first frame before a run stops. */
const FIRST_FRAME_TIMEOUT_MS = 5000;

/** One JPEG of what the camera shows now (as captured: not mirrored, as the API expects). */
async function grab(video: HTMLVideoElement, canvas: HTMLCanvasElement): Promise<Blob> {
  // A session started as the camera opens can ask for a frame before the camera has shown one:
  // the video is then 0 x 0, its canvas has no JPEG, and the run stopped on "frame capture
  // failed" (seen with Chromium's file-fed camera on a loaded box). Wait for the first frame.
  const t0 = Date.now();
  while (video.videoWidth === 0 || video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) {
    if (Date.now() - t0 > FIRST_FRAME_TIMEOUT_MS) throw new Error('the camera showed no frame');
    await sleep(100);
  }
  const w = video.videoWidth;
  const h = video.videoHeight;
  const scale = Math.min(1, 640 / Math.max(w, h));
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(h * scale);
  canvas.getContext('2d')!.drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('frame capture failed'))), 'image/jpeg', 0.85));
}

export function Liveness() {
  const videoRef = useRef<HTMLVideoElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const runRef = useRef(0);
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [challenges, setChallenges] = useState<Challenge[]>([]);
  const [last, setLast] = useState<FrameResult | null>(null);
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [frames, setFrames] = useState(0);
  const [running, setRunning] = useState(false);

  useEffect(
    () => () => {
      runRef.current++;
      stream?.getTracks().forEach((t) => t.stop());
    },
    [stream],
  );

  const openCamera = async () => {
    setError(null);
    try {
      if (!navigator.mediaDevices?.getUserMedia) throw new Error('this browser gives no camera here (getUserMedia needs https:// or localhost)');
      const s = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 }, facingMode: 'user' }, audio: false });
      setStream(s);
      videoRef.current!.srcObject = s;
      await videoRef.current!.play();
    } catch (err) {
      setError(`camera: ${errorText(err)}`);
    }
  };

  const start = async () => {
    setError(null);
    setLast(null);
    setFrames(0);
    const run = ++runRef.current;
    setRunning(true);
    try {
      const s = await api.json<{ session_id: string; challenges: Challenge[] }>('POST', '/liveness/sessions', {});
      setSessionId(s.session_id);
      setChallenges(s.challenges);
      // One frame in flight at a time: the next is captured when the answer comes back.
      while (runRef.current === run) {
        const form = new FormData();
        form.append('image', await grab(videoRef.current!, canvasRef.current!), 'frame.jpg');
        try {
          const r = await api.form<FrameResult>(`/liveness/sessions/${s.session_id}/frame`, form);
          setLast(r);
          setFrames((n) => n + 1);
          setError(null);
          if (ENDED.has(r.state)) break;
        } catch (err) {
          const text = errorText(err);
          // A refusal with Retry-After (503 BUSY, 429) or a dropped connection is waited out as
          // the daemon asks: the session's own timeouts still bound the run, and stopping here
          // would leave it in progress with no verdict ever shown.
          if (err instanceof ApiError && err.transient) {
            const wait = Math.min(MAX_RETRY_WAIT_S, Math.max(1, err.retryAfterSeconds ?? 1));
            setError(`${text}; retrying in ${Math.ceil(wait)} s`);
            await sleep(wait * 1000);
            continue;
          }
          // No face in a frame is normal while the user settles; anything else stops the run.
          setError(text);
          if (!(err instanceof ApiError && err.code === 'NO_FACE')) break;
        }
        await sleep(80);
      }
      // A challenge can time out between two frames (the next one is then refused with
      // SESSION_ENDED): the session itself says how it ended.
      if (runRef.current === run) {
        const info = await api.get<SessionInfo>(`/liveness/sessions/${s.session_id}`);
        setLast((cur) => ({
          challenge_type: info.current_challenge,
          passed: false,
          confidence: cur?.confidence ?? 0,
          ...cur,
          state: info.state,
          is_live: info.is_live,
          session_complete: info.session_complete,
          challenges_remaining: info.challenges_remaining,
          liveness_score: info.liveness_score,
          failure_reason: info.failure_reason,
        }));
        if (ENDED.has(info.state)) setError(null);
      }
    } catch (err) {
      setError(errorText(err));
    }
    if (runRef.current === run) setRunning(false);
  };

  const stop = async () => {
    runRef.current++;
    setRunning(false);
    if (sessionId && last && !ENDED.has(last.state)) await api.del(`/liveness/sessions/${sessionId}`).catch(() => undefined);
  };

  const passedCount = last ? challenges.length - last.challenges_remaining : 0;
  const ended = last ? ENDED.has(last.state) : false;
  return (
    <div class="grid wide-first">
      <Card title="Camera">
        <video ref={videoRef} class="selfie" muted playsInline />
        <canvas ref={canvasRef} hidden />
        <div class="toolbar">
          {!stream && <button onClick={() => void openCamera()}>Open camera</button>}
          {stream && (
            <button onClick={() => void start()} disabled={running}>
              Start a session
            </button>
          )}
          {running && (
            <button class="danger" onClick={() => void stop()}>
              Cancel
            </button>
          )}
        </div>
        <ErrorNote error={error} />
      </Card>
      <Card title="Challenges" actions={last && <Badge ok={last.is_live}>{last.is_live === null ? last.state : last.is_live ? 'live' : 'not live'}</Badge>}>
        {challenges.length === 0 && <p class="muted">Open the camera, then start a session: follow each instruction as it lights up.</p>}
        <ol class="challenges" data-testid="challenges">
          {challenges.map((c, i) => {
            const state = i < passedCount ? 'passed' : ended && i === passedCount && !last?.session_complete ? 'failed' : !ended && i === passedCount ? 'current' : 'waiting';
            return (
              <li key={c.type} class={state} data-state={state}>
                <b>{c.instruction}</b>{' '}
                <span class="muted">
                  ({c.type}, {c.timeout_seconds}s)
                </span>
                {state === 'current' && last && <progress max={1} value={last.confidence} />}
              </li>
            );
          })}
        </ol>
        {last && (
          <p class="verdict" data-testid="verdict" data-session={sessionId ?? undefined} data-state={last.state} role="status">
            {ended
              ? last.session_complete
                ? 'Verdict: live — every challenge passed.'
                : `Verdict: not live (${last.state}${last.failure_reason ? `: ${last.failure_reason}` : ''}).`
              : `In progress: ${last.challenges_remaining} challenge(s) left.`}{' '}
            <span class="muted">
              {frames} frames{typeof last.liveness_score === 'number' ? `, liveness score ${last.liveness_score.toFixed(1)}` : ''}
            </span>
          </p>
        )}
      </Card>
    </div>
  );
}
