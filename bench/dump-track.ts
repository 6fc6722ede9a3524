/**
 * Frame by frame, what ByteTrack (shipped settings) made of a few tracks against a few
 * annotated people, and every cached detection: for reading one wrong count that
 * eval-tracking --diagnose --verbose points at (its track and person ids and frames).
 * Reads the detections eval-tracking cached (run it once first); boxes in the scene's pixels.
 *
 *   node --import tsx bench/dump-track.ts SCENE TRACK[,TRACK] FROM TO PERSON[,PERSON]
 *   e.g. node --import tsx bench/dump-track.ts TUD-Stadtmitte 3 78 96 4,9
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/core/package-root.js';
import { ByteTracker, defaultTrackerSettings } from '../src/modules/person/bytetrack.js';
import type { DetectedFrame } from './lib/detection-cache.js';
import { readMot } from './lib/mot-metrics.js';
import { SCENES } from './lib/scenes.js';

const [sceneName, trackArg, from, to, personArg] = process.argv.slice(2);
const scene = SCENES.find((s) => s.name === sceneName);
if (!scene || !trackArg || !from || !to || !personArg) {
  console.error('usage: dump-track.ts SCENE TRACK[,TRACK] FROM TO PERSON[,PERSON]');
  process.exit(2);
}
const root = packageRoot();
const cacheDir = join(root, 'bench', 'out', 'cache');
// The scene's own detections at the default input (not the 1080p or tiled ones).
const key = scene.video.replace(/[^A-Za-z0-9]+/g, '_');
const cached = readdirSync(cacheDir).find((f) => f.startsWith('det-') && f.includes(key) && f.endsWith('-416shaped-0.1.json'));
if (!cached) {
  console.error(`no cached detections for ${scene.name}: run bench/eval-tracking.ts first`);
  process.exit(2);
}
const frames = JSON.parse(readFileSync(join(cacheDir, cached), 'utf8')) as DetectedFrame[];
const gt = readMot(join(root, '..', 'shared', 'testdata', 'video', scene.gt)).boxes;
const tracker = new ByteTracker(defaultTrackerSettings(0.5, 30));
const tracks = trackArg.split(',').map(Number);
const persons = personArg.split(',').map(Number);
const box = (b: number[]) => `[${b.map((v) => v.toFixed(0)).join(',')}]`;
frames.forEach((f, i) => {
  const s = scene.width / f.width;
  const { tracks: live } = tracker.update(f.dets);
  const frame = i + 1;
  if (frame < Number(from) || frame > Number(to)) return;
  const t = live.filter((x) => tracks.includes(x.trackId)).map((x) => `T${x.trackId}${box([x.x1 * s, x.y1 * s, x.x2 * s, x.y2 * s])}`);
  const g = gt.filter((b) => b.frame === frame && persons.includes(b.id)).map((b) => `P${b.id}${box([b.x, b.y, b.x + b.w, b.y + b.h])}`);
  const d = f.dets.map((x) => `${x.score.toFixed(2)}${box([x.x1 * s, x.y1 * s, x.x2 * s, x.y2 * s])}`);
  console.log(`${frame} ${t.join(' ')} | ${g.join(' ')} | detections ${d.join(' ')}`);
});
