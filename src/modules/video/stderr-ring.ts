import { redactText } from '../../core/redact.js';

/**
 * The last lines ffmpeg wrote on stderr, credentials scrubbed before they are
 * stored, so neither a log line nor an API answer built from them can leak one.
 */
export class StderrRing {
  private lines: string[] = [];
  private partial = '';

  constructor(
    private readonly capacity: number,
    private readonly secrets: readonly string[],
    private readonly onLine?: (line: string) => void,
  ) {}

  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const parts = text.split(/\r?\n|\r/);
    this.partial = parts.pop() ?? '';
    // A runaway line without a newline must not grow without bound.
    if (this.partial.length > 4096) {
      parts.push(this.partial);
      this.partial = '';
    }
    for (const raw of parts) this.add(raw);
  }

  /** End of a run: keep a last line that had no newline. */
  flush(): void {
    if (this.partial) this.add(this.partial);
    this.partial = '';
  }

  tail(n = this.capacity): string[] {
    return this.lines.slice(-n);
  }

  clear(): void {
    this.lines = [];
    this.partial = '';
  }

  private add(raw: string): void {
    const line = redactText(raw.trimEnd(), this.secrets);
    if (!line) return;
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
    this.onLine?.(line);
  }
}

const NOISE =
  /^(?:Exiting normally|Press \[q\]|Input #|Output #|Stream mapping|\s*(?:Stream #|Metadata|Duration|encoder|handler_name|major_brand|minor_version|compatible_brands|creation_time|title|ISFT|Side data|cpb|configuration|built with|lib\w+\s+\d))/;
const ERRORISH =
  /error|fail|refused|not found|no such|invalid|unauthori[sz]ed|forbidden|timed? ?out|denied|unable|cannot|could not|not supported|unsupported|unreachable|broken pipe|end of file|401|403|404|\b5\d\d\b/i;

/** The stderr line that best explains why a run ended: the last error-looking one, else the last line. */
export function explainFailure(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (ERRORISH.test(l) && !NOISE.test(l)) return l;
  }
  for (let i = lines.length - 1; i >= 0; i--) if (!NOISE.test(lines[i]!)) return lines[i];
  return undefined;
}
