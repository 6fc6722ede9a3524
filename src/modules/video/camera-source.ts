import { isAbsolute } from 'node:path';
import { BadRequestError } from '../../core/errors.js';
import { redactUrl, urlSecrets } from '../../core/redact.js';

export type SourceKind = 'rtsp' | 'file' | 'device';

/** A camera source after validation: what ffmpeg opens and how it is shown to people. */
export interface CameraSource {
  kind: SourceKind;
  /** The source string as the client gave it (kept, with credentials, in the store only). */
  raw: string;
  /** What ffmpeg's -i receives: the URL, `file:<path>` or the v4l2 device path. */
  input: string;
  /** The source with any password replaced by ***: the only spelling logs and answers use. */
  display: string;
  /** Literal secrets to scrub from ffmpeg's stderr. */
  secrets: string[];
}

const MAX_DEVICE_INDEX = 63;

/**
 * Classifies a camera source: `rtsp://`/`rtsps://` URLs, absolute file paths,
 * v4l2 device indexes ("0" is /dev/video0) or /dev/videoN paths. Anything else is a
 * 400 with a code that says which rule it broke, so no string a client sends can
 * become an ffmpeg option (a leading "-") or an ffmpeg protocol (concat:, http:, ...).
 */
export function parseCameraSource(value: string): CameraSource {
  const s = value.trim();
  const raw = s;
  if (s.length === 0) throw new BadRequestError('INVALID_SOURCE', 'source must not be empty');
  if (s.length > 2048) throw new BadRequestError('INVALID_SOURCE', 'source is longer than 2048 characters');
  if (/[\u0000-\u001f\u007f]/.test(s)) throw new BadRequestError('INVALID_SOURCE', 'source contains control characters');

  if (/^\d+$/.test(s)) {
    const index = Number(s);
    if (index > MAX_DEVICE_INDEX) throw new BadRequestError('INVALID_SOURCE', `device index ${index} is out of range (0-${MAX_DEVICE_INDEX})`);
    const dev = `/dev/video${index}`;
    return { kind: 'device', raw, input: dev, display: s, secrets: [] };
  }

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(s)?.[1]?.toLowerCase();
  if (scheme === 'rtsp' || scheme === 'rtsps') {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      throw new BadRequestError('INVALID_SOURCE', `not a valid ${scheme} URL: ${redactUrl(s)}`);
    }
    if (!url.hostname) throw new BadRequestError('INVALID_SOURCE', `${scheme} URL has no host: ${redactUrl(s)}`);
    if (/\s/.test(s)) throw new BadRequestError('INVALID_SOURCE', 'RTSP URL contains white space (percent-encode it)');
    return { kind: 'rtsp', raw, input: s, display: redactUrl(s), secrets: urlSecrets(s) };
  }
  if (scheme && !/^[a-z]:[\\/]/i.test(s)) {
    throw new BadRequestError('UNSUPPORTED_SOURCE', `unsupported source scheme "${scheme}:"; use rtsp://, rtsps://, an absolute file path or a device index`, {
      scheme,
    });
  }

  if (!isAbsolute(s)) {
    throw new BadRequestError('INVALID_SOURCE', 'a file source must be an absolute path (the daemon has no meaningful working directory)');
  }
  const dev = /^\/dev\/video(\d+)$/.exec(s);
  if (dev) return { kind: 'device', raw, input: s, display: s, secrets: [] };
  // "file:" keeps ffmpeg from reading a path such as /x/concat:y as a protocol.
  return { kind: 'file', raw, input: `file:${s}`, display: s, secrets: [] };
}

/** The path behind a file source (for the existence check before spawning). */
export function filePath(source: CameraSource): string | undefined {
  return source.kind === 'file' ? source.input.slice('file:'.length) : undefined;
}
