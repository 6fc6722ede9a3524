import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';

export interface ManifestInput {
  name: string;
  type: 'float32' | 'float16';
  shape: (number | null)[];
}

export interface ManifestEntry extends DataFileEntry {
  inputs: ManifestInput[];
  /** Concrete input shapes for the warm-up run (dynamic dimensions filled in). */
  warmup_shapes: number[][];
  preprocessing: string;
}

interface ManifestFile {
  models: ManifestEntry[];
  data_files?: DataFileEntry[];
}

let raw: ManifestFile | undefined;
let cached: Map<string, ManifestEntry> | undefined;

function manifestFile(): ManifestFile {
  raw ??= JSON.parse(readFileSync(join(packageRoot(), 'models', 'manifest.json'), 'utf8')) as ManifestFile;
  return raw;
}

/** models/manifest.json, the list of every model file Vigil knows how to run. */
export function modelManifest(): Map<string, ManifestEntry> {
  cached ??= new Map(manifestFile().models.map((m) => [m.name, m]));
  return cached;
}

/** A data file that travels with the models (an OCR dictionary): fetched and sha256-checked like them. */
export interface DataFileEntry {
  name: string;
  file: string;
  sha256: string;
  bytes: number;
  task: string;
  license: string;
  /** True only where the weights carry a permissive licence read at the source (face.profile: commercial uses only these). */
  commercial_use?: boolean;
  origin: string;
  upstream_url: string;
}

export function dataFileEntry(name: string): DataFileEntry | undefined {
  return manifestFile().data_files?.find((d) => d.name === name);
}
