import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CameraCounting } from '../../src/modules/video/counting/camera-counting.js';
import { makeLine, makeZone, type LineCounts } from '../../src/modules/video/counting/rules.js';
import { readMot } from '../../bench/lib/mot-metrics.js';
import { truthCounts } from '../../bench/lib/line-counts.js';
import { randomLines, randomZones } from '../../bench/lib/random-rules.js';
import { seededRandom } from '../../bench/lib/seeded.js';
import { placeBoxes, SCENES } from '../../bench/lib/scenes.js';
import { oracleFrames, oracleTracks } from '../../bench/lib/oracle-detections.js';
import { scoreLines, scoreZones } from '../../bench/lib/count-metrics.js';
import { testdata } from '../helpers/paths.js';

/**
 * The counting logic alone, on tracks as good as tracks get: the annotated boxes and ids of
 * the three tuning scenes, over 100 random lines and 30 random zones each. Whatever Vigil
 * adds to a track's point (smoothing, standing height, re-association of lost ids) must
 * still agree with the documented crossing rule the truth is counted by (bench/lib/line-counts.ts).
 */
describe('counting agrees with the crossing rule on annotated tracks', () => {
  for (const scene of SCENES.filter((s) => s.split === 'tuning')) {
    it(scene.name, () => {
      // Guards: counting's own point (smoothed, standing height) drifting from the rule, so
      // that even perfect tracking miscounts (the 6-21% "with ground-truth identities" of an
      // earlier round was the detector's, not this logic's: here it is about 1%).
      const rand = seededRandom(20261125);
      const region = { x: 0, y: 0, w: 1, h: 1 };
      const lines = randomLines(rand, 100, region);
      const zones = randomZones(rand, 30, region);
      const place = { file: '', frameW: scene.width, frameH: scene.height, ox: 0, oy: 0 };
      const gt = placeBoxes(readMot(testdata('video', scene.gt)).boxes, place, scene);
      const truth = truthCounts(gt, lines, zones, scene.width, scene.height);
      const nFrames = Math.max(...gt.map((b) => b.frame));
      const counting = new CameraCounting();
      for (const l of lines) counting.setRule(makeLine({ rule_id: l.name, points: l.points }));
      for (const z of zones) counting.setRule(makeZone({ rule_id: z.name, points: z.points }));
      for (const f of oracleFrames(gt, nFrames, scene.width, scene.height, { jitter: 0, dropout: 0 }, rand)) counting.process(oracleTracks(f), [], f.width, f.height);
      counting.endOfStream();
      const L = scoreLines(truth.lines, Object.fromEntries(lines.map((l) => [l.name, counting.countsOf(l.name) as LineCounts])));
      const Z = scoreZones(truth.zones, Object.fromEntries(zones.map((z) => [z.name, counting.countsOf(z.name) as { entered: number; exited: number }])));
      assert.ok(L.truth > 30, `${L.truth} true crossings`);
      // Two crossings are allowed, as for zones: with the jitter band (track-memory.ts) a person
      // who steps over a line in the file's very last frame (TUD-Campus) is not yet clear of it.
      assert.ok(L.absError <= Math.max(2, 0.025 * L.truth), `line error ${L.absError}/${L.truth}`);
      assert.ok(L.extra / L.truth <= 0.01, `extra counts ${L.extra}/${L.truth}`);
      // Zones are entered and left a few dozen times per scene: two misses are allowed there.
      assert.ok(Z.absError <= Math.max(2, 0.03 * Z.truth), `zone error ${Z.absError}/${Z.truth}`);
    });
  }
});
