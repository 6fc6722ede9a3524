import { closeSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { WatchlistIndex } from './watchlist-index.js';

/**
 * The in-memory indexes written to one file, so that a start-up after a clean stop loads a
 * million samples in about the time it takes to read the file instead of decoding a million
 * LMDB records. LMDB stays the only source of truth: the snapshot records the store's
 * generation (bumped by every committed change) and the recognizer, and is used only when
 * both still match; otherwise the indexes are rebuilt from LMDB (and a new snapshot is
 * written). Written to a temporary file, fsynced and renamed, so a kill leaves either the
 * old snapshot or the new one.
 *
 * Layout: "VGIX" | u32 header length | header JSON | per watchlist, in header order:
 * float32 rows, int8 codes, float32 scales, identity ids joined by "\n".
 */
const MAGIC = 'VGIX';
const VERSION = 1;

export interface SnapshotHeader {
  version: number;
  generation: number;
  recognizer: string;
  dim: number;
  sizes: Record<string, number>;
  watchlists: { name: string; rows: number; vecs: number; codes: number; scales: number; ids: number }[];
}

export interface Snapshot {
  sizes: Map<string, number>;
  indexes: Map<string, WatchlistIndex>;
}

function writeAll(fd: number, data: Uint8Array): void {
  let off = 0;
  while (off < data.byteLength) off += writeSync(fd, data, off, data.byteLength - off);
}

function readAll(fd: number, into: Uint8Array, position: number): void {
  let off = 0;
  while (off < into.byteLength) {
    const n = readSync(fd, into, off, into.byteLength - off, position + off);
    if (n === 0) throw new Error('snapshot file is truncated');
    off += n;
  }
}

export function writeSnapshot(file: string, state: { generation: number; recognizer: string; sizes: Map<string, number>; indexes: Map<string, WatchlistIndex> }): void {
  const entries = [...state.indexes].map(([name, index]) => {
    const { identities, regions } = index.snapshot();
    return { name, index, ids: Buffer.from(identities.join('\n')), regions };
  });
  const dim = entries[0]?.index.dim ?? 0;
  const header: SnapshotHeader = {
    version: VERSION,
    generation: state.generation,
    recognizer: state.recognizer,
    dim,
    sizes: Object.fromEntries(state.sizes),
    watchlists: entries.map((e) => ({
      name: e.name,
      rows: e.index.samples,
      vecs: e.regions.vecs.byteLength,
      codes: e.regions.codes.byteLength,
      scales: e.regions.scales.byteLength,
      ids: e.ids.byteLength,
    })),
  };
  const json = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(8);
  prefix.write(MAGIC, 0, 'ascii');
  prefix.writeUInt32LE(json.byteLength, 4);
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeAll(fd, prefix);
    writeAll(fd, json);
    for (const e of entries) {
      writeAll(fd, e.regions.vecs);
      writeAll(fd, e.regions.codes);
      writeAll(fd, e.regions.scales);
      writeAll(fd, e.ids);
    }
    fsyncSync(fd);
  } catch (err) {
    // A full disk: no half-written temporary file left to eat the space that returns.
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
}

/** The snapshot when it matches `expect`, or null with the reason (missing, stale, damaged). */
export function readSnapshot(file: string, expect: { generation: number; recognizer: string }): { snapshot: Snapshot | null; reason: string } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { snapshot: null, reason: 'no index snapshot' };
  }
  try {
    const size = statSync(file).size;
    const prefix = Buffer.alloc(8);
    readAll(fd, prefix, 0);
    if (prefix.toString('ascii', 0, 4) !== MAGIC) return { snapshot: null, reason: 'not an index snapshot' };
    const json = Buffer.alloc(prefix.readUInt32LE(4));
    readAll(fd, json, 8);
    const header = JSON.parse(json.toString('utf8')) as SnapshotHeader;
    if (header.version !== VERSION) return { snapshot: null, reason: `snapshot version ${header.version}` };
    if (header.recognizer !== expect.recognizer) return { snapshot: null, reason: `snapshot made for ${header.recognizer}` };
    if (header.generation !== expect.generation) return { snapshot: null, reason: `snapshot at generation ${header.generation}, database at ${expect.generation}` };
    const total = 8 + json.byteLength + header.watchlists.reduce((n, w) => n + w.vecs + w.codes + w.scales + w.ids, 0);
    if (total !== size) return { snapshot: null, reason: `snapshot is ${size} bytes, its header says ${total}` };
    let pos = 8 + json.byteLength;
    const indexes = new Map<string, WatchlistIndex>();
    for (const w of header.watchlists) {
      const region = pos;
      pos += w.vecs + w.codes + w.scales;
      const idBytes = Buffer.alloc(w.ids);
      readAll(fd, idBytes, pos);
      pos += w.ids;
      const ids = w.rows === 0 ? [] : idBytes.toString('utf8').split('\n');
      if (ids.length !== w.rows) return { snapshot: null, reason: `snapshot of ${w.name} lists ${ids.length} ids for ${w.rows} rows` };
      indexes.set(
        w.name,
        WatchlistIndex.restore(header.dim, ids, (r) => {
          if (r.vecs.byteLength !== w.vecs || r.codes.byteLength !== w.codes || r.scales.byteLength !== w.scales) throw new Error('snapshot region sizes do not match');
          readAll(fd, r.vecs, region);
          readAll(fd, r.codes, region + w.vecs);
          readAll(fd, r.scales, region + w.vecs + w.codes);
        }),
      );
    }
    return { snapshot: { sizes: new Map(Object.entries(header.sizes)), indexes }, reason: 'snapshot matches the database' };
  } catch (err) {
    return { snapshot: null, reason: `snapshot unreadable: ${(err as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

export function removeSnapshot(file: string): void {
  rmSync(file, { force: true });
}
