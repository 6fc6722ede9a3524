import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { envLeaves } from '../../src/config/env-overrides.js';
import { ConfigSchema } from '../../src/config/schema.js';

function yamlFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cfg-'));
  const file = join(dir, 'vigil.yaml');
  writeFileSync(file, text);
  return file;
}

function problemsOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems;
  }
  assert.fail('expected a ConfigError');
}

describe('configuration', () => {
  it('embedded defaults equal the spec table', () => {
    const c = loadConfig({ env: {} });
    assert.equal(c.face.det_thresh, 0.5);
    assert.equal(c.face.max_faces, 10);
    assert.equal(c.face.quality_gate, 30.0);
    assert.equal(c.liveness.session_ttl, 300);
    assert.equal(c.liveness.num_challenges, 3);
    assert.equal(c.liveness.timeout_seconds, 5.0);
    assert.equal(c.person.confidence_threshold, 0.5);
    assert.equal(c.events.max_workers, 4);
    assert.equal(c.events.history_size, 1000);
    assert.equal(c.identity.cluster_threshold, 0.6);
    assert.equal(c.video.enabled, false);
    assert.equal(c.video.max_fps, 30.0);
    assert.equal(c.video.track_faces, true);
    assert.equal(c.video.buffer_size, 10);
    assert.equal(c.server.host, '0.0.0.0');
    assert.equal(c.server.port, 8080);
    assert.equal(c.mqtt.topic_prefix, 'vigil');
  });

  it('reads module sections from the YAML file named by VIGIL_CONFIG', () => {
    const file = yamlFile('video:\n  enabled: true\n  max_fps: 12.5\nface:\n  det_size: [320, 320]\n');
    const c = loadConfig({ env: { VIGIL_CONFIG: file } });
    assert.equal(c.video.enabled, true);
    assert.equal(c.video.max_fps, 12.5);
    assert.deepEqual(c.face.det_size, [320, 320]);
  });

  it('environment wins over the file, for operator names and derived names', () => {
    const file = yamlFile('server:\n  port: 9000\nface:\n  det_thresh: 0.3\n');
    const c = loadConfig({
      env: { VIGIL_CONFIG: file, VIGIL_PORT: '9100', VIGIL_FACE_DET_THRESH: '0.65', VIGIL_VIDEO_ENABLED: 'true', VIGIL_FACE_DET_SIZE: '480,480' },
    });
    assert.equal(c.server.port, 9100);
    assert.equal(c.face.det_thresh, 0.65);
    assert.equal(c.video.enabled, true);
    assert.deepEqual(c.face.det_size, [480, 480]);
  });

  it('VIGIL_HOST, VIGIL_DATA_DIR, VIGIL_MODEL_MIRROR and VIGIL_LOG_LEVEL map onto server settings', () => {
    const c = loadConfig({ env: { VIGIL_HOST: '127.0.0.1', VIGIL_DATA_DIR: '/var/lib/vigil', VIGIL_MODEL_MIRROR: '/srv/models', VIGIL_LOG_LEVEL: 'warn' } });
    assert.equal(c.server.host, '127.0.0.1');
    assert.equal(c.server.data_dir, '/var/lib/vigil');
    assert.equal(c.server.model_mirror, '/srv/models');
    assert.equal(c.server.log_level, 'warn');
    assert.equal(c.identity.watchlist_dir, '/var/lib/vigil/watchlists');
  });

  it('rejects unknown keys and out-of-range values, naming path, value and message', () => {
    const file = yamlFile('face:\n  det_thres: 0.5\n  max_faces: 0\nvideo:\n  max_fps: -1\nbogus: {}\n');
    const problems = problemsOf(() => loadConfig({ env: { VIGIL_CONFIG: file } }));
    const byPath = new Map(problems.map((p) => [p.path, p]));
    assert.equal(byPath.get('face.det_thres')?.message, 'unknown setting');
    assert.equal(byPath.get('face.det_thres')?.value, '0.5');
    assert.match(byPath.get('face.max_faces')?.message ?? '', />= 1/);
    assert.equal(byPath.get('face.max_faces')?.value, '0');
    assert.match(byPath.get('video.max_fps')?.message ?? '', /> 0/);
    assert.ok(byPath.has('bogus'));
  });

  it('rejects a bad environment value and an unknown VIGIL_ variable', () => {
    const problems = problemsOf(() => loadConfig({ env: { VIGIL_FACE_MAX_FACES: 'ten', VIGIL_FACE_DETTHRESH: '1' } }));
    assert.deepEqual(problems.map((p) => p.path).sort(), ['env:VIGIL_FACE_DETTHRESH', 'env:VIGIL_FACE_MAX_FACES']);
  });

  it('rejects a wrong enum value with the allowed values', () => {
    const problems = problemsOf(() => loadConfig({ env: { VIGIL_FACE_DETECTOR: 'mtcnn' } }));
    assert.equal(problems[0]?.path, 'face.detector');
    assert.match(problems[0]?.message ?? '', /scrfd_500m/);
  });

  it('rejects a file that is not YAML or not a mapping', () => {
    assert.equal(problemsOf(() => loadConfig({ env: { VIGIL_CONFIG: yamlFile('face: [unclosed') } }))[0]?.path, '(file)');
    assert.equal(problemsOf(() => loadConfig({ env: { VIGIL_CONFIG: yamlFile('- a\n- b\n') } }))[0]?.path, '(root)');
    assert.equal(problemsOf(() => loadConfig({ env: { VIGIL_CONFIG: '/nonexistent/vigil.yaml' } }))[0]?.path, '(file)');
  });

  it('derives one environment variable per setting, all distinct', () => {
    const leaves = envLeaves(ConfigSchema);
    const names = leaves.map((l) => l.env);
    assert.equal(new Set(names).size, names.length);
    assert.ok(names.includes('VIGIL_FACE_DET_THRESH'));
    assert.ok(names.includes('VIGIL_EVENTS_HISTORY_SIZE'));
    // Every leaf has a default and a description (the schema is the documentation).
    for (const l of leaves) {
      assert.ok('default' in l.schema, `${l.path.join('.')} has no default`);
      assert.ok(typeof l.schema.description === 'string', `${l.path.join('.')} has no description`);
    }
  });
});
