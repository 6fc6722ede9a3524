import pino, { type Logger } from 'pino';

/** One root logger; modules and cameras take children so every line says where it came from. */
export function createLogger(level: string): Logger {
  return pino({
    name: 'vigil',
    level,
    // Credentials can reach logs through URLs and headers; never print them.
    redact: { paths: ['req.headers.authorization', 'password', '*.password', 'secret', '*.secret'], censor: '[redacted]' },
  });
}
