import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';

/** Face entries of ../shared/testdata/MANIFEST.json, with the labels the evaluation reads. */
export interface FaceFile {
  file: string;
  path: string;
  labels: { identity?: string; faces?: number | string; liveness?: 'live' | 'spoof'; attack_type?: string };
}

export const TESTDATA = resolve(packageRoot(), '..', 'shared', 'testdata');

export function faceFiles(folder: 'identities' | 'multi' | 'noface' | 'pad' | 'variants'): FaceFile[] {
  const manifest = JSON.parse(readFileSync(join(TESTDATA, 'MANIFEST.json'), 'utf8')) as { files: { file: string; labels: FaceFile['labels'] }[] };
  return manifest.files
    .filter((f) => f.file.startsWith(`faces/${folder}/`))
    .map((f) => ({ file: f.file, path: join(TESTDATA, f.file), labels: f.labels }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

/** Faces a multi/ image must yield: the number, or the "N prominent" count of a descriptive label. */
export function expectedFaces(labels: FaceFile['labels']): { min: number; exact: boolean } {
  if (typeof labels.faces === 'number') return { min: labels.faces, exact: true };
  const m = /^(\d+)/.exec(String(labels.faces ?? ''));
  return { min: m ? Number(m[1]) : 0, exact: false };
}

/** Genuine and impostor score lists over all unordered pairs. */
export function pairScores<T>(items: { id: string; v: T }[], score: (a: T, b: T) => number): { genuine: number[]; impostor: number[] } {
  const genuine: number[] = [];
  const impostor: number[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const s = score(items[i]!.v, items[j]!.v);
      (items[i]!.id === items[j]!.id ? genuine : impostor).push(s);
    }
  }
  return { genuine, impostor };
}

export function meanStd(xs: number[]): { mean: number; std: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, xs.length - 1));
  return { mean, std };
}

/** Equal error rate: over every candidate threshold, the point where FAR and FRR are closest (their mean there). */
export function eer(genuine: number[], impostor: number[]): number {
  const ts = [...genuine, ...impostor].sort((a, b) => a - b);
  let best = { gap: Infinity, rate: 1 };
  for (const t of ts) {
    const far = impostor.filter((s) => s >= t).length / impostor.length;
    const frr = genuine.filter((s) => s < t).length / genuine.length;
    const gap = Math.abs(far - frr);
    if (gap < best.gap) best = { gap, rate: (far + frr) / 2 };
  }
  return best.rate;
}

/** TAR at the lowest threshold where no impostor pair is accepted (just above the top impostor score). */
export function tarAtZeroFar(genuine: number[], impostor: number[]): number {
  const top = Math.max(...impostor);
  return genuine.filter((s) => s > top).length / genuine.length;
}

export function rateAt(scores: number[], t: number): number {
  return scores.filter((s) => s >= t).length / scores.length;
}

export const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
export const f3 = (v: number) => v.toFixed(3);
