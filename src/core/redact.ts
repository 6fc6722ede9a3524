/**
 * Credentials in URLs (rtsp://user:password@host/..., webhook URLs) must never reach a log
 * line, an error message or an API answer. Everything that prints a source or a
 * line of ffmpeg's stderr goes through these.
 */

const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^/@\s]*)@/gi;

/** rtsp://user:secret@host/x -> rtsp://user:***@host/x (the user name stays: it helps operators). */
export function redactUrl(url: string): string {
  return url.replace(USERINFO, (_m, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon < 0 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:***@`;
  });
}

/** The secrets of a URL in every spelling ffmpeg may echo back (raw and percent-decoded). */
export function urlSecrets(url: string): string[] {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/@\s]*)@/i.exec(url);
  if (!m?.[1]) return [];
  const colon = m[1].indexOf(':');
  if (colon < 0) return [];
  const raw = m[1].slice(colon + 1);
  const out = new Set([raw]);
  try {
    out.add(decodeURIComponent(raw));
  } catch {
    // A malformed escape: the raw spelling is the only one ffmpeg can print.
  }
  return [...out].filter((s) => s.length > 0);
}

/** Redacts URL user-info and any literal occurrence of the given secrets. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = redactUrl(text);
  for (const s of secrets) if (s.length >= 1) out = out.split(s).join('***');
  return out;
}
