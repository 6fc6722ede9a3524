/**
 * Counting and tracking accuracy over the MOT sequences of ../shared/testdata/video, on
 * lines and zones nobody chose: for each scene, --lines random counting lines (horizontal,
 * vertical, diagonal, full-width, short) and --zones random convex zones from a seed that
 * changes every run (printed; --seed replays it). Vigil's counts come from the daemon's own
 * path: the camera argv and PPM parser (every frame, not real time), YOLOX, ByteTrack with
 * the daemon's settings, and CameraCounting as a camera runs it, end of stream included.
 * The truth comes from gt.txt by the rule in bench/lib/line-counts.ts. MOTA and IDF1 beside.
 *
 *   node --import tsx bench/eval-tracking.ts [--seed N] [--lines 100] [--zones 30]
 *        [--scene PETS09-S2L1] [--wide] [--step 1] [--verbose]
 *
 * --amodal: count the truth on the boxes as annotated, also where they reach outside the picture.
 * --wide: the scenes placed into a 1920x1080 frame (small people, bench/lib/scenes.ts).
 * --input N: the detector's input long side (person.detector_input: frames fed at their own aspect, default 416); 0: the model's 416 square, letterboxed.
 * --foot-cap N: counting sees each track's bottom capped at its top + the median height of its last N boxes (src/modules/person/foot-cap.ts).
 * --tiles N: frames delivered N times the detector input, detected as N x N tiles (bench/lib/detection-cache.ts).
 * --step N: the tracker sees every Nth frame (a camera processed below its source rate).
 * --settle N, --reach R: a change of side counts after N frames clearly on the new side; a new id continues a lost one predicted within R box heights (src/modules/video/counting).
 * Detections are cached per frame under bench/out/cache (deterministic; see detection-cache.ts).
 * --oracle gt|gt-ids|det-ids: the annotated boxes instead of YOLOX's (gt: through ByteTrack; gt-ids: with the annotated
 *   identities, no tracker; det-ids: YOLOX's boxes with the identities of the annotated boxes they match, no tracker), with --jitter S (edges move by S box heights) and --dropout P (boxes missed): what
 *   the counting logic alone gets wrong (bench/lib/oracle-detections.ts).
 * --direction W, --match C, --second C, --low S: ByteTrack's direction weight, first- and second-association cost limits and low-score floor.
 * --detector movenet [--movenet-size N] [--movenet-gain G]: MoveNet MultiPose's people (Apache-2.0, at most 6 a frame) instead
 *   of YOLOX's, for the detector comparison (bench/lib/movenet-multipose.ts, bench/compare-person-detectors.ts); not a daemon
 *   option. Its person scores run lower than YOLOX's for the same people (median 0.29-0.43 against 0.78-0.85 on the tuning
 *   scenes) and ByteTrack multiplies each overlap by the score: they are scaled by G (default 2.5, capped at 1).
 *   --detector yolox-movenet-box: YOLOX's detections, each box replaced by the MoveNet box it overlaps (a box refiner).
 * --head-motion 0: a lost track's predicted point moves as its point did, not as its box's top (src/modules/video/counting/track-memory.ts).
 * Two more line errors beside the strict one (bench/lib/line-counts.ts truthRange): "do-not-consider free" scores only
 *   counts outside the range between the truth without and with the people the annotators marked "do not consider" (conf 0,
 *   as MOTA and IDF1 do); "and beyond T h" also widens the range to every annotated point moved by T (--tolerance, default
 *   0.02) of its box height left, right, up or down: crossings decided by less than any box's precision. The zones'
 *   "do-not-consider free" error is read the same way.
 * --diagnose: each wrong count put down to its cause (bench/lib/crossing-diagnosis.ts).
 * --jitter-band K: a person's band around lines is at least K times the jitter of their point (src/modules/video/counting/track-memory.ts; 0: off).
 * --app-weight W, --look-min S: colour appearance (src/modules/person/appearance.ts, computed from the decoded frames and
 *   cached beside the detections) in ByteTrack's first association (cost + W x (1 - similarity)) and as a gate on
 *   counting's hand-over of lost tracks (similarity at least S). Measured, not shipped (docs/accuracy.md).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PERSON_MODEL } from '../src/modules/person/person-service.js';
import { ByteTracker, defaultTrackerSettings } from '../src/modules/person/bytetrack.js';
import { FootCap } from '../src/modules/person/foot-cap.js';
import { CameraCounting } from '../src/modules/video/counting/camera-counting.js';
import { makeLine, makeZone, type LineCounts } from '../src/modules/video/counting/rules.js';
import { dropIgnored, evaluateMot, readMot, type MotBox } from './lib/mot-metrics.js';
import { truthCounts, truthRange, zoneTruthRange } from './lib/line-counts.js';
import { detectAll, type DetectedFrame } from './lib/detection-cache.js';
import { withAppearance } from './lib/appearance-cache.js';
import { randomLines, randomZones, type LineSpec, type ZoneSpec } from './lib/random-rules.js';
import { freshSeed, seededRandom } from './lib/seeded.js';
import { placeBoxes, placeScene, SCENES } from './lib/scenes.js';
import { errorBeyondRange, pct, scoreLines, scoreZones, zoneErrorBeyondRange } from './lib/count-metrics.js';
import { openSceneBench } from './lib/scene-bench.js';
import { machineLine } from './lib/stats.js';
import { sceneHash } from './lib/scene-hash.js';
import { diagnose, truthEvents, type CrossEvent } from './lib/crossing-diagnosis.js';
import { detectionsWithTruthIds, oracleFrames, oracleTracks, type OracleFrame } from './lib/oracle-detections.js';
import { moveNetDetectedFrames, openMoveNet, refinedByMoveNet } from './lib/movenet-multipose.js';

const { values: opts } = parseArgs({
  options: {
    seed: { type: 'string' },
    lines: { type: 'string', default: '100' },
    zones: { type: 'string', default: '30' },
    scene: { type: 'string' },
    wide: { type: 'boolean', default: false },
    step: { type: 'string', default: '1' },
    high: { type: 'string', default: '0.5' },
    buffer: { type: 'string', default: '30' },
    direction: { type: 'string' },
    match: { type: 'string' },
    low: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    // Counting's track memory (src/modules/video/counting/track-memory.ts); --reach 0 and --height-frames 1: the plain bottom-centre, no re-association.
    reach: { type: 'string' },
    'height-frames': { type: 'string' },
    reassociate: { type: 'string' },
    band: { type: 'string' },
    smooth: { type: 'string' },
    settle: { type: 'string' },
    amodal: { type: 'boolean', default: false },
    tiles: { type: 'string', default: '1' },
    input: { type: 'string', default: '416' },
    'foot-cap': { type: 'string', default: '0' },
    oracle: { type: 'string' },
    jitter: { type: 'string', default: '0' },
    dropout: { type: 'string', default: '0' },
    diagnose: { type: 'boolean', default: false },
    'app-weight': { type: 'string' },
    'look-min': { type: 'string' },
    'jitter-band': { type: 'string' },
    'head-motion': { type: 'string' },
    second: { type: 'string' },
    tolerance: { type: 'string', default: '0.02' },
    detector: { type: 'string', default: 'yolox' },
    'movenet-size': { type: 'string', default: '416' },
    'movenet-gain': { type: 'string', default: '2.5' },
  },
});
const seed = opts.seed ? Number(opts.seed) : freshSeed();
const nLines = Number(opts.lines);
const nZones = Number(opts.zones);
const step = Number(opts.step);
const LOW_SCORE = 0.1;
/** Detections described by colour, and the boxes that can hide them (appearance.ts describeDetections). */
const LOOK_SCORE = 0.3;

const { testdata: TESTDATA, cache: CACHE, registry, detector, modelFile, ff } = await openSceneBench(Number(opts.input));
if (!['yolox', 'movenet', 'yolox-movenet-box'].includes(opts.detector)) throw new Error('--detector yolox|movenet|yolox-movenet-box');
// --detector movenet: MoveNet MultiPose's people instead of YOLOX's (bench/lib/movenet-multipose.ts; measured, not shipped).
const movenet = opts.detector !== 'yolox' ? await openMoveNet(join(CACHE, '..', 'movenet')) : null;

/** The daemon's tracking and counting over cached detections, every `step`th frame; hypothesis boxes in the delivered frame's pixels. */
function runVigil(frames: (DetectedFrame | OracleFrame)[], lines: LineSpec[], zones: ZoneSpec[], frameW: number) {
  const tracker = new ByteTracker({
    ...defaultTrackerSettings(Number(opts.high), Number(opts.buffer)),
    ...(opts.direction ? { directionWeight: Number(opts.direction) } : {}),
    ...(opts.match ? { matchThresh: Number(opts.match) } : {}),
    ...(opts.low ? { lowThresh: Number(opts.low) } : {}),
    ...(opts['app-weight'] ? { appearanceWeight: Number(opts['app-weight']) } : {}),
    ...(opts.second ? { secondMatchThresh: Number(opts.second) } : {}),
  });
  const counting = new CameraCounting({
    ...(opts.reach ? { reassociateReach: Number(opts.reach) } : {}),
    ...(opts['height-frames'] ? { heightFrames: Number(opts['height-frames']) } : {}),
    ...(opts.band ? { personBand: Number(opts.band) } : {}),
    ...(opts.smooth ? { smoothFrames: Number(opts.smooth) } : {}),
    ...(opts.settle ? { settleFrames: Number(opts.settle) } : {}),
    ...(opts['look-min'] ? { lookMin: Number(opts['look-min']) } : {}),
    ...(opts['jitter-band'] ? { jitterBand: Number(opts['jitter-band']) } : {}),
    ...(opts['head-motion'] ? { headMotion: opts['head-motion'] !== '0' } : {}),
    reassociateFrames: opts.reassociate ? Number(opts.reassociate) : Number(opts.buffer),
  });
  for (const l of lines) counting.setRule(makeLine({ rule_id: l.name, points: l.points }));
  for (const z of zones) counting.setRule(makeZone({ rule_id: z.name, points: z.points }));
  const footCap = Number(opts['foot-cap']) > 0 ? new FootCap(Number(opts['foot-cap'])) : null;
  const hyp: MotBox[] = [];
  const events: CrossEvent[] = [];
  frames.forEach((f, i) => {
    if (i % step !== 0) return;
    const { tracks, removed } = opts.oracle === 'gt-ids' || opts.oracle === 'det-ids' ? { tracks: oracleTracks(f as OracleFrame), removed: [] } : tracker.update(f.dets);
    for (const e of counting.process(footCap ? footCap.apply(tracks) : tracks, removed, f.width, f.height))
      if (e.type === 'line_crossed') events.push({ frame: i + 1, line: e.rule.rule_id, id: e.data.track_id, dir: e.data.direction });
    const s = frameW / f.width;
    for (const t of tracks) hyp.push({ frame: i + 1, id: t.trackId, x: t.x1 * s, y: t.y1 * s, w: (t.x2 - t.x1) * s, h: (t.y2 - t.y1) * s });
  });
  counting.endOfStream();
  const lineCounts = Object.fromEntries(lines.map((l) => [l.name, counting.countsOf(l.name) as LineCounts]));
  const zoneCounts = Object.fromEntries(zones.map((z) => [z.name, counting.countsOf(z.name) as { entered: number; exited: number }]));
  return { lineCounts, zoneCounts, hyp, events };
}

console.log(machineLine());
console.log(
  `seed ${seed} (--seed ${seed} replays) | ${nLines} random lines + ${nZones} random zones per scene | ${opts.wide ? 'scenes placed in 1920x1080' : 'scenes as recorded'} | every ${step === 1 ? '' : `${step}th `}frame`,
);
if (opts.oracle)
  console.log(`oracle detections: annotated boxes${opts.oracle === 'gt-ids' ? ' with annotated ids (no tracker)' : ' through ByteTrack'}, jitter ${opts.jitter} box heights, dropout ${opts.dropout}`);
console.log(
  `detector ${opts.detector === 'movenet' ? `MoveNet MultiPose, long side ${opts['movenet-size']}, scores x ${opts['movenet-gain']} (not the daemon's)` : opts.detector === 'yolox-movenet-box' ? `${PERSON_MODEL}, boxes replaced by MoveNet's (not the daemon's)` : PERSON_MODEL} ${detector.shapedToFrame ? `shaped to the frame, long side ${detector.inputSize}` : `${detector.inputSize}x${detector.inputSize}`}${opts.tiles !== '1' ? ` on ${opts.tiles}x${opts.tiles} tiles` : ''}, ByteTrack high ${opts.high}, buffer ${opts.buffer} frames; counting reach ${opts.reach ?? 'default'}, height frames ${opts['height-frames'] ?? 'default'}, person band ${opts.band ?? 'default'}, smoothing ${opts.smooth ?? 'default'}, settle ${opts.settle ?? 'default'}`,
);
console.log('');
const rows: string[] = [];
const motRows: string[] = [];
for (const scene of SCENES.filter((s) => !opts.scene || s.name === opts.scene)) {
  const place = placeScene(ff.path, TESTDATA, scene, opts.wide, CACHE);
  const region = { x: place.ox / place.frameW, y: place.oy / place.frameH, w: scene.width / place.frameW, h: scene.height / place.frameH };
  // One stream of random numbers per scene, so adding a scene leaves the others' lines alone.
  const rand = seededRandom(seed ^ sceneHash(scene.name));
  const lines = randomLines(rand, nLines, region);
  const zones = randomZones(rand, nZones, region);
  const yolox = await detectAll(ff, detector, modelFile, place.file, CACHE, LOW_SCORE, Number(opts.tiles));
  const detected = !movenet
    ? yolox
    : opts.detector === 'movenet'
      ? { frames: await moveNetDetectedFrames(movenet, ff, place.file, Number(opts['movenet-size']), yolox.frames, CACHE, Number(opts['movenet-gain'])), msPerFrame: null }
      : { frames: await refinedByMoveNet(movenet, ff, place.file, Number(opts['movenet-size']), yolox.frames, CACHE), msPerFrame: null };
  const { msPerFrame } = detected;
  // Each detection's colours (src/modules/person/appearance.ts), only when an appearance option asks for them.
  const frames = opts['app-weight'] || opts['look-min'] ? await withAppearance(ff, place.file, detector.inputSize * Number(opts.tiles), detected.frames, LOOK_SCORE, CACHE) : detected.frames;
  const gt = readMot(join(TESTDATA, scene.gt));
  // Counting truth: boxes cut to the picture (bench/lib/scenes.ts); MOT scoring: the boxes as annotated.
  const gtBoxes = placeBoxes(gt.boxes, place, scene, !opts.amodal);
  const motBoxes = placeBoxes(gt.boxes, place, scene, false);
  const truth = truthCounts(gtBoxes, lines, zones, place.frameW, place.frameH);
  // The same people with the annotators' "do not consider" boxes (conf 0): counting them is neither required nor wrong.
  const withIgnored = placeBoxes([...gt.boxes, ...gt.ignore], place, scene, !opts.amodal);
  const considered = truthRange([gtBoxes, withIgnored], lines, place.frameW, place.frameH, 0);
  const range = truthRange([gtBoxes, withIgnored], lines, place.frameW, place.frameH, Number(opts.tolerance));
  const noise = { jitter: Number(opts.jitter), dropout: Number(opts.dropout) };
  const input =
    opts.oracle === 'det-ids'
      ? detectionsWithTruthIds(frames, gtBoxes, place.frameW)
      : opts.oracle
        ? oracleFrames(gtBoxes, frames.length, place.frameW, place.frameH, noise, seededRandom(seed ^ sceneHash(`${scene.name}-oracle`)))
        : frames;
  const t0 = performance.now();
  const v = runVigil(input, lines, zones, place.frameW);
  const trackMs = (performance.now() - t0) / Math.ceil(frames.length / step);
  const L = scoreLines(truth.lines, v.lineCounts);
  const dnc = errorBeyondRange(considered, v.lineCounts);
  const zoneDnc = zoneErrorBeyondRange(zoneTruthRange([gtBoxes, withIgnored], zones, place.frameW, place.frameH), v.zoneCounts);
  const beyond = errorBeyondRange(range, v.lineCounts);
  const Z = scoreZones(truth.zones, v.zoneCounts);
  // MOT scores over the frames the tracker saw (all of them unless --step).
  const seen = (b: MotBox) => (b.frame - 1) % step === 0;
  const mot = evaluateMot(motBoxes.filter(seen), dropIgnored(v.hyp, placeBoxes(gt.ignore, place, scene, false).filter(seen)));
  rows.push(
    `| ${scene.name} (${scene.split}) | ${nLines} / ${L.linesCrossed} | ${L.truth} | ${L.absError} | **${pct(L.absError, L.truth)}** | ${pct(dnc, L.truth)} (${dnc}) | ${pct(beyond, L.truth)} (${beyond}) | ${pct(L.extra, L.truth)} (${L.extra}) | ${L.phantom} | ${(100 * L.p90LineError).toFixed(0)}% | ${(100 * L.worstDecile).toFixed(0)}% | ${Z.truth} | ${pct(Z.absError, Z.truth)} | ${pct(zoneDnc, Z.truth)} |`,
  );
  motRows.push(
    `| ${scene.name} | ${frames.length} | ${mot.mota.toFixed(3)} | ${mot.idf1.toFixed(3)} | ${mot.precision.toFixed(3)} | ${mot.recall.toFixed(3)} | ${mot.idsw} | ${mot.gtIds} / ${mot.hypIds} | ${msPerFrame === null ? 'cached' : msPerFrame.toFixed(0)} | ${trackMs.toFixed(2)} |`,
  );
  if (opts.diagnose) {
    const why = diagnose(truthEvents(gtBoxes, lines, place.frameW, place.frameH), v.events, gtBoxes, v.hyp, Math.max(3, Math.round(scene.fps)), opts.verbose ? console.log : undefined);
    console.log(
      `${scene.name}: ${Object.entries(why)
        .sort()
        .map(([k, n]) => `${k} ${n}`)
        .join(' | ')}`,
    );
  }
  if (opts.verbose) {
    for (const l of lines) {
      const g = truth.lines[l.name]!;
      const got = v.lineCounts[l.name]!;
      if (g.in !== got.in || g.out !== got.out) console.log(`  ${scene.name} ${l.name} ${l.kind} ${JSON.stringify(l.points)} truth ${g.in}/${g.out} vigil ${got.in}/${got.out}`);
    }
    for (const z of zones) {
      const g = truth.zones[z.name]!;
      const got = v.zoneCounts[z.name]!;
      if (g.entered !== got.entered || g.exited !== got.exited) console.log(`  ${scene.name} ${z.name} truth ${g.entered}/${g.exited} vigil ${got.entered}/${got.exited}`);
    }
  }
}
console.log(
  `| scene | lines / crossed | true crossings | abs. error | line error | do-not-consider free | and beyond ${opts.tolerance} h | extra counts | on uncrossed | p90 line | worst decile | zone truth | zone error | zone, do-not-consider free |`,
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log('');
console.log('| scene | frames | MOTA | IDF1 | precision | recall | ID sw | ids gt / Vigil | detect ms/frame | track+count ms/frame |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of motRows) console.log(r);
await registry.close();
