/**
 * Every face of every shared image that can be given an identity, embedded through the
 * service's own detector, alignment and recognizers: the largest impostor set the shared data
 * allows (identities/, the group photos of multi/ with their left-to-right labels, variants/,
 * the named people of pad/). Used by bench/eval-far.ts and bench/eval-frontalize.ts.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { decodeImage, type RgbImage } from '../../src/core/image-decode.js';
import { alignFace } from '../../src/modules/face/face-align.js';
import type { RawFace } from '../../src/modules/face/face-geometry.js';
import type { FaceRecognizer } from '../../src/modules/face/face-recognizer.js';
import type { ImpostorPair } from './far-stats.js';
import { faceFiles, type FaceFile } from './face-eval-data.js';

export interface LabelledFace {
  /** Person; faces of one person make genuine pairs, of two different people impostor pairs. */
  person: string;
  /** The photo a face was cut from: faces of derived copies of one photo (variants/) share it. */
  photo: string;
  file: string;
  /** Raw (uncalibrated) unit embedding per recognizer manifest name. */
  emb: Record<string, Float32Array>;
}

type MultiLabels = FaceFile['labels'] & { identities_left_to_right?: string[]; identities_prominent?: string[]; identities?: string | string[] };

/** Who is in each photo, left to right, as labelled; [] when the label names nobody usable. */
function peopleInPhoto(f: FaceFile): string[] {
  const l = f.labels as MultiLabels;
  if (f.file.startsWith('faces/multi/')) return l.identities_left_to_right ?? l.identities_prominent ?? [];
  if (l.identity) return [l.identity];
  // pad/: the vendor demo names its genuine and spoof people (a photo of a person is that person's face).
  const attack = String(l.attack_type ?? '');
  const named = /\(([A-Z][a-z]+ [A-Z][a-z]+)\)/.exec(attack);
  return named ? [`pad_${named[1]!.toLowerCase().replace(' ', '_')}`] : [];
}

/** Variants are the same photographs as identities/ re-encoded or cropped: their source photo. */
function photoOf(f: FaceFile): string {
  const note = String((f.labels as { note?: string }).note ?? '');
  const same = /same photo as (\S+?\.(?:jpg|png))/.exec(note) ?? /derived from the same photo as (\S+?\.(?:jpg|png))/.exec(note);
  return same ? same[1]! : f.file;
}

/** One labelled face: who it is, the photo it was cut from, and its detection in the decoded image. */
export interface LabelledDetection {
  person: string;
  photo: string;
  file: string;
  img: RgbImage;
  face: RawFace;
}

/**
 * Faces of one photo matched to its labels: the N largest detections (N = labelled people),
 * ordered left to right by box centre. A photo with fewer detections than labels is skipped
 * (the assignment would be a guess) and reported through `skipped`.
 */
export async function* labelledDetections(app: FastifyInstance, skipped: string[]): AsyncGenerator<LabelledDetection> {
  const files = (['identities', 'multi', 'variants', 'pad'] as const).flatMap((d) => faceFiles(d));
  for (const f of files) {
    const people = peopleInPhoto(f);
    if (people.length === 0) continue;
    const img = await decodeImage(readFileSync(f.path), { field: 'image', maxPixels: 100_000_000 });
    const found = await app.face.detect(img, { maxFaces: 50 });
    if (found.length < people.length) {
      skipped.push(`${f.file} (${found.length} faces for ${people.length} labels)`);
      continue;
    }
    const chosen = [...found]
      .sort((a, b) => (b.box[2] - b.box[0]) * (b.box[3] - b.box[1]) - (a.box[2] - a.box[0]) * (a.box[3] - a.box[1]))
      .slice(0, people.length)
      .sort((a, b) => a.box[0] + a.box[2] - (b.box[0] + b.box[2]));
    for (const [i, face] of chosen.entries()) yield { person: people[i]!, photo: photoOf(f), file: f.file, img, face };
  }
}

/** Every labelled face embedded by each recognizer, through the service's own alignment. */
export async function labelledFaces(app: FastifyInstance, recognizers: string[]): Promise<{ faces: LabelledFace[]; skipped: string[] }> {
  const recs: [string, FaceRecognizer][] = [];
  for (const name of recognizers) {
    const r = await app.face.openRecognizer(name);
    if (!r) throw new Error(`${name} did not load`);
    recs.push([name, r]);
  }
  const faces: LabelledFace[] = [];
  const skipped: string[] = [];
  for await (const { person, photo, file, img, face } of labelledDetections(app, skipped)) {
    const aligned = alignFace(img, face.kps);
    const emb: Record<string, Float32Array> = {};
    for (const [name, r] of recs) emb[name] = await r.embed(r.usesArcfaceCrop ? aligned : await r.align(img, face));
    faces.push({ person, photo, file, emb });
  }
  return { faces, skipped };
}

/** Unordered pairs split by relation; pairs of one photo (a copy against its source) are left out. */
export function facePairs(faces: LabelledFace[], score: (a: LabelledFace, b: LabelledFace) => number, keep: (a: LabelledFace, b: LabelledFace) => boolean = () => true) {
  const genuine: number[] = [];
  const impostor: ImpostorPair[] = [];
  for (let i = 0; i < faces.length; i++) {
    for (let j = i + 1; j < faces.length; j++) {
      const a = faces[i]!;
      const b = faces[j]!;
      if (a.photo === b.photo || a.photo.endsWith(`/${b.photo}`) || b.photo.endsWith(`/${a.photo}`) || !keep(a, b)) continue;
      if (a.person === b.person) genuine.push(score(a, b));
      else impostor.push({ a: a.person, b: b.person, s: score(a, b) });
    }
  }
  return { genuine, impostor };
}
