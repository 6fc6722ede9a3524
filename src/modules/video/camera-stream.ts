import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Static } from 'typebox';
import { AppError } from '../../core/errors.js';
import { filePath, type CameraSource } from './camera-source.js';
import { resolveFileSource } from './file-source-policy.js';
import { buildStreamArgs, isHwaccelFailure, parseInputCodec, usesHardware, type DecodePreset, type FfmpegCaps } from './ffmpeg-args.js';
import { FrameRing, RateMeter, type Frame } from './frame-ring.js';
import { PpmStreamParser } from './ppm-stream.js';
import { RestartPolicy, type RestartSettings } from './restart-policy.js';
import type { CameraStatusSchema } from './schema.js';
import { explainFailure, StderrRing } from './stderr-ring.js';

/**
 * starting: ffmpeg spawned, no frame yet (bounded by the watchdog); running: frames
 * arrive; restarting: waiting out the backoff after a failure; failed: the restart
 * intensity was exceeded (retried after failed_retry_seconds, if set); ended: a file
 * played to its end without loop; stopped: removed or shutting down.
 */
export type CameraStatus = Static<typeof CameraStatusSchema>;

export interface StreamSettings {
  binary: string;
  caps: FfmpegCaps;
  decode: DecodePreset;
  box: { width: number; height: number };
  maxFps: number | null;
  realtime: boolean;
  loop: boolean;
  rtspTimeoutMs: number;
  decodeThreads: number;
  watchdogMs: number;
  restart: RestartSettings;
  failedRetryMs: number;
  stopStepMs: number;
  bufferSize: number;
  /** video.file_roots: a file source is checked against them before every run. */
  fileRoots: readonly string[];
}

export interface StreamEvents {
  onFrame?: (frame: Frame) => void;
  /** Status changes, with the reason when the camera is not running. */
  onStatus?: (status: CameraStatus, reason: string | null) => void;
  /** The restart intensity was exceeded (the caller emits system_error). */
  onGiveUp?: (reason: string) => void;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

interface Run {
  child: Child;
  startedAt: number;
  frames: number;
  hardware: boolean;
  /** Set when we end the run ourselves (stall, planned switch, stop): the reason to record. */
  killedFor?: string;
  closed: Promise<void>;
}

const STDERR_LINES = 100;

/**
 * One camera's ffmpeg process under supervision: frames out of a PPM pipe into a
 * ring, a no-frame watchdog, capped exponential backoff with a restart-intensity
 * limit, a hardware-decode fallback to the CPU, and the stop ladder q -> SIGTERM ->
 * SIGKILL. Never throws into the caller: every failure becomes a status and a reason.
 */
export class CameraStream {
  status: CameraStatus = 'stopped';
  lastError: string | null = null;
  frameCount = 0;
  restarts = 0;
  readonly ring: FrameRing;
  /** Input codec learnt from ffmpeg's stream dump. */
  codec: string | undefined;
  /** Why hardware decode was abandoned for the CPU, when it was. */
  decodeFallback: string | null = null;

  private readonly meter = new RateMeter();
  private readonly stderr: StderrRing;
  private readonly policy: RestartPolicy;
  private decode: DecodePreset;
  private run: Run | null = null;
  private timer: NodeJS.Timeout | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private lastFrameAt = 0;
  private stopping = false;

  constructor(
    readonly source: CameraSource,
    private readonly s: StreamSettings,
    private readonly log: Logger,
    private readonly events: StreamEvents = {},
  ) {
    this.ring = new FrameRing(s.bufferSize);
    this.stderr = new StderrRing(STDERR_LINES, source.secrets, (line) => this.onStderrLine(line));
    this.policy = new RestartPolicy(s.restart);
    this.decode = s.decode;
  }

  get isRunning(): boolean {
    return this.status === 'running' || this.status === 'starting';
  }

  fps(now = Date.now()): number {
    return this.status === 'running' ? this.meter.rate(now) : 0;
  }

  /** Decoder actually in use: the hwaccel name, or cpu. */
  decoder(): string {
    return usesHardware(this.decode, this.source, this.codec) ? this.decode.hwaccel : 'cpu';
  }

  stderrTail(n?: number): string[] {
    return this.stderr.tail(n);
  }

  start(): void {
    this.stopping = false;
    this.policy.reset();
    this.spawnRun();
    this.watchdog = setInterval(() => this.checkWatchdog(), Math.min(1000, this.s.watchdogMs / 2));
    this.watchdog.unref();
  }

  /** A file camera restored after it had played to its end: it stays ended, ffmpeg is not started. */
  restoreEnded(reason: string): void {
    this.setStatus('ended', reason);
  }

  /** A camera disabled by its operator: stopped with the reason, ffmpeg is not started. */
  restoreStopped(reason: string): void {
    this.setStatus('stopped', reason);
  }

  /** The stop ladder; resolves once ffmpeg is gone. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.watchdog) clearInterval(this.watchdog);
    this.timer = null;
    this.watchdog = null;
    const run = this.run;
    if (run) await this.endRun(run, 'stopped');
    this.setStatus('stopped', null);
  }

  private setStatus(status: CameraStatus, reason: string | null): void {
    const changed = status !== this.status || reason !== this.lastError;
    this.status = status;
    if (reason !== null || status === 'running') this.lastError = reason;
    if (changed) this.events.onStatus?.(status, reason);
  }

  private spawnRun(): void {
    this.timer = null;
    if (this.stopping) return;
    const path = filePath(this.source);
    let source = this.source;
    if (path !== undefined) {
      // Checked again at every run: the roots may have changed since the camera was
      // stored, or a symlink inside them may have been pointed elsewhere.
      let real: string | null;
      try {
        real = resolveFileSource(path, this.s.fileRoots);
      } catch (err) {
        this.failed(err instanceof AppError ? err.message : String(err));
        return;
      }
      if (real === null) {
        // ffmpeg would say the same, less clearly; the file may still appear (a mount), so retry.
        this.failed(`file not found: ${path}`);
        return;
      }
      // ffmpeg opens the resolved path, so a link swapped after the check is not followed.
      source = { ...source, input: `file:${real}` };
    }
    const args = buildStreamArgs({ ...this.s, source, decode: this.decode, codec: this.codec });
    let child: Child;
    try {
      child = spawn(this.s.binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      this.failed(`cannot start ffmpeg: ${(err as Error).message}`);
      return;
    }
    const hardware = usesHardware(this.decode, this.source, this.codec);
    let resolveClosed!: () => void;
    const run: Run = { child, startedAt: Date.now(), frames: 0, hardware, closed: new Promise((r) => (resolveClosed = r)) };
    this.run = run;
    this.stderr.clear();
    this.setStatus('starting', null);
    this.log.debug({ source: this.source.display, decoder: this.decoder() }, 'ffmpeg started');

    const parser = new PpmStreamParser((raw) => this.onFrame(run, raw));
    child.stdout.on('data', (chunk: Buffer) => {
      if (this.run !== run) return;
      try {
        parser.push(chunk);
      } catch (err) {
        void this.endRun(run, `corrupt frame stream: ${(err as Error).message}`);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    // ffmpeg gone before we wrote 'q' (or between): EPIPE is expected, not a crash.
    child.stdin.on('error', () => undefined);
    child.on('error', (err) => {
      // spawn failure (ENOENT, EACCES): 'close' follows.
      run.killedFor ??= `cannot start ffmpeg (${this.s.binary}): ${err.message}`;
    });
    child.on('close', (code, signal) => {
      this.stderr.flush();
      resolveClosed();
      if (this.run === run) this.run = null;
      this.onRunClosed(run, code, signal);
    });
  }

  private onFrame(run: Run, raw: { data: Buffer; width: number; height: number }): void {
    const now = Date.now();
    run.frames++;
    this.frameCount++;
    this.lastFrameAt = now;
    this.meter.tick(now);
    const frame: Frame = { ...raw, seq: this.frameCount, timestamp: now };
    this.ring.push(frame);
    if (this.status !== 'running') {
      this.policy.healthy();
      this.setStatus('running', null);
      this.log.info({ source: this.source.display, decoder: this.decoder(), width: raw.width, height: raw.height }, 'camera running');
    }
    try {
      this.events.onFrame?.(frame);
    } catch (err) {
      this.log.error({ err }, 'frame consumer threw');
    }
  }

  private onStderrLine(line: string): void {
    if (this.codec) return;
    if (/^\s*Output #/.test(line)) return;
    const codec = parseInputCodec(line);
    if (!codec) return;
    this.codec = codec;
    // Jetson decoders are per codec: once it is known, switch the software first run to hardware.
    const run = this.run;
    if (run && !run.hardware && usesHardware(this.decode, this.source, codec)) {
      this.log.info({ codec }, 'codec known, restarting on the hardware decoder');
      void this.endRun(run, 'planned');
    }
  }

  private checkWatchdog(): void {
    const run = this.run;
    if (!run || this.stopping || run.killedFor) return;
    const now = Date.now();
    const since = run.frames > 0 ? this.lastFrameAt : run.startedAt;
    if (now - since > this.s.watchdogMs) {
      const what = run.frames > 0 ? 'no frame' : 'no first frame';
      void this.endRun(run, `${what} for ${Math.round((now - since) / 1000)} s (watchdog)`);
    }
  }

  /** q, then SIGTERM, then SIGKILL, each given stopStepMs; resolves once the process closed. */
  private async endRun(run: Run, reason: string): Promise<void> {
    run.killedFor ??= reason;
    const { child } = run;
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    const waitClose = (ms: number) => Promise.race([run.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (!gone()) {
      try {
        child.stdin.end('q');
      } catch {
        // stdin already closed
      }
      if (!(await waitClose(this.s.stopStepMs)) && !gone()) {
        child.kill('SIGTERM');
        if (!(await waitClose(this.s.stopStepMs)) && !gone()) {
          child.kill('SIGKILL');
        }
      }
    }
    await run.closed;
  }

  private onRunClosed(run: Run, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping) return;
    if (run.killedFor === 'planned') {
      this.spawnRun();
      return;
    }
    const tail = this.stderr.tail();
    // Hardware decode that never produced a frame: fall back to the CPU at once.
    if (run.hardware && run.frames === 0 && tail.some(isHwaccelFailure)) {
      this.decodeFallback = `${this.decode.hwaccel} decode failed: ${tail.filter(isHwaccelFailure).pop() ?? 'no frames'}`;
      this.log.warn({ source: this.source.display, reason: this.decodeFallback }, 'hardware decode failed; using the CPU');
      this.decode = { hwaccel: 'none' };
      this.spawnRun();
      return;
    }
    if (this.source.kind === 'file' && !this.s.loop && code === 0 && !run.killedFor && run.frames > 0) {
      this.setStatus('ended', `end of file after ${this.frameCount} frames`);
      this.log.info({ source: this.source.display, frames: this.frameCount }, 'file source ended');
      return;
    }
    const why = run.killedFor ?? explainFailure(tail) ?? `ffmpeg exited (${signal ?? `code ${code}`})`;
    this.log.warn({ source: this.source.display, reason: why, stderr: tail.slice(-20) }, 'camera stream ended');
    this.failed(why);
  }

  private failed(reason: string): void {
    const decision = this.policy.next(Date.now());
    if (decision.action === 'give_up') {
      const msg = `gave up after ${decision.restarts} restarts in ${Math.round(decision.windowMs / 1000)} s: ${reason}`;
      this.setStatus('failed', msg);
      this.log.error({ source: this.source.display, reason: msg }, 'camera failed');
      this.events.onGiveUp?.(msg);
      if (this.s.failedRetryMs > 0) {
        this.timer = setTimeout(() => {
          this.policy.reset();
          this.spawnRun();
        }, this.s.failedRetryMs);
        this.timer.unref();
      }
      return;
    }
    this.restarts++;
    this.setStatus('restarting', reason);
    this.timer = setTimeout(() => this.spawnRun(), decision.delayMs);
    this.timer.unref();
  }
}
