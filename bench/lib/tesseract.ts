import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FORMATS } from '../../src/modules/document/mrz-format.js';
import { parseMrz, type ParsedMrz } from '../../src/modules/document/mrz-parser.js';
import { distsFromLine, repairMrz } from '../../src/modules/document/mrz-repair.js';

const run = promisify(execFile);

/** Debian's tesseract-ocr (bench-only baseline; `apt-get install tesseract-ocr`). */
export async function tesseractAvailable(): Promise<string | undefined> {
  try {
    const { stdout, stderr } = await run('tesseract', ['--version']);
    return (stdout || stderr).split('\n')[0];
  } catch {
    return undefined;
  }
}

export async function tesseract(file: string, extra: string[] = []): Promise<string> {
  const { stdout } = await run('tesseract', [file, 'stdout', '-l', 'eng', ...extra], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** Tesseract restricted to the MRZ alphabet (as PassportEye runs it). */
export function tesseractMrzText(file: string): Promise<string> {
  return tesseract(file, ['--psm', '6', '-c', 'tessedit_char_whitelist=ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<']);
}

/**
 * Picks MRZ lines out of tesseract's text (the last 2 or 3 lines that look like
 * MRZ rows), fits them to the layout's length and runs them through Vigil's own
 * repair (look-alike distributions) and parser, so the comparison isolates the
 * OCR engines.
 */
export function mrzFromText(text: string): ParsedMrz | undefined {
  const rows = text
    .split('\n')
    .map((l) => l.replace(/\s+/g, '').toUpperCase())
    .filter((l) => l.length >= 20 && (l.includes('<') || /\d{6}/.test(l)));
  if (rows.length < 2) return undefined;
  const tries: string[][] = rows.length >= 3 ? [rows.slice(-3), rows.slice(-2)] : [rows.slice(-2)];
  let best: ParsedMrz | undefined;
  for (const set of tries) {
    const median = [...set].map((l) => l.length).sort((a, b) => a - b)[Math.floor(set.length / 2)]!;
    const length = set.length === 3 ? 30 : Math.abs(median - 36) < Math.abs(median - 44) ? 36 : 44;
    if (set.length === 3 && Math.abs(median - 30) > 4) continue;
    const fitted = set.map((l) => (l.length >= length ? l.slice(0, length) : l + '<'.repeat(length - l.length)));
    const visa = fitted[0]!.startsWith('V');
    const format = set.length === 3 ? FORMATS.TD1 : length === 44 ? (visa ? FORMATS.MRVA : FORMATS.TD3) : visa ? FORMATS.MRVB : FORMATS.TD2;
    const parsed = parseMrz(
      repairMrz(
        format,
        fitted.map((l) => distsFromLine(l)),
      ).lines,
    );
    if (parsed && (!best || parsed.checks.filter((c) => c.valid).length > best.checks.filter((c) => c.valid).length)) best = parsed;
  }
  return best;
}

/** Levenshtein distance (character error count). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Whitespace runs (line breaks included) count as one space: CER measures the characters read, not the line splits. */
export function normaliseText(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
