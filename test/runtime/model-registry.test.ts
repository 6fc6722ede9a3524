import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { packageRoot } from '../../src/core/package-root.js';
import { ModelRegistry } from '../../src/runtime/model-registry.js';
import { readProfile } from '../../src/runtime/hw-profile.js';
import { testApp } from '../helpers/app.js';
import { multipart } from '../helpers/multipart.js';
import { testdata } from '../helpers/paths.js';

const modelsDir = join(packageRoot(), 'models');

function copyModels(except: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-models-'));
  for (const f of readdirSync(modelsDir).filter((f) => f.endsWith('.onnx') && !except.includes(f))) copyFileSync(join(modelsDir, f), join(dir, f));
  return dir;
}

describe('model registry', () => {
  it('loads a real model once, on the CPU provider, and warms it up', async () => {
    const reg = new ModelRegistry(modelsDir, readProfile('x86-cpu'), 0, pino({ level: 'silent' }));
    const [a, b] = await Promise.all([reg.load('face_det_scrfd_500m'), reg.load('face_det_scrfd_500m')]);
    assert.ok(a);
    assert.equal(a, b, 'concurrent loads share one session');
    const s = reg.status('face_det_scrfd_500m')!;
    assert.equal(s.loaded, true);
    assert.equal(s.provider, 'cpu');
    assert.equal(typeof s.warmup_ms, 'number');
    await reg.close();
  });

  it('falls back to the CPU when the profile asks for CUDA on a box without it, and says why', async () => {
    const reg = new ModelRegistry(modelsDir, readProfile('x86-nvidia'), 0, pino({ level: 'silent' }));
    const m = await reg.load('face_rec_mobilefacenet_128d');
    assert.ok(m);
    const s = reg.status('face_rec_mobilefacenet_128d')!;
    assert.equal(s.loaded, true);
    // On a GPU box with onnxruntime's CUDA binaries this is cuda/tensorrt; here it must say why not.
    if (s.provider === 'cpu') assert.match(s.fallback_reason ?? '', /unavailable/);
    await reg.close();
  });

  it('reports a corrupt file as loaded:false with the reason', async () => {
    const dir = copyModels();
    writeFileSync(join(dir, 'face_rec_mobilefacenet_128d.onnx'), 'not a model');
    const reg = new ModelRegistry(dir, readProfile('x86-cpu'), 0, pino({ level: 'silent' }));
    assert.equal(await reg.load('face_rec_mobilefacenet_128d'), undefined);
    assert.match(reg.status('face_rec_mobilefacenet_128d')!.reason ?? '', /corrupt: sha256/);
    assert.throws(
      () => reg.get('face_rec_mobilefacenet_128d'),
      (e: Error & { statusCode?: number; code?: string }) => e.statusCode === 503 && e.code === 'MODEL_UNAVAILABLE',
    );
  });

  it('one missing model file makes only that component loaded:false; the daemon serves the rest', async () => {
    // The default recognizer (face.recognizer: faceplugin_512d) is the file taken away.
    const dir = copyModels(['face_rec_faceplugin_512d.onnx']);
    const t = await testApp({ face: { models_dir: dir } });
    try {
      const list = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/models' })).json() as { name: string; loaded: boolean; reason?: string }[];
      const byName = new Map(list.map((c) => [c.name, c]));
      assert.equal(byName.get('face_recognizer')!.loaded, false);
      assert.match(byName.get('face_recognizer')!.reason ?? '', /model file missing.*face_rec_faceplugin_512d\.onnx/);
      assert.equal(byName.get('face_detector')!.loaded, true);
      assert.equal(byName.get('liveness')!.loaded, true);
      assert.equal(byName.get('active_liveness')!.loaded, true);
      const health = (await t.app.inject({ method: 'GET', url: '/api/v1/admin/health' })).json();
      assert.equal(health.healthy, false);
      assert.equal(health.modules.face, false);
      assert.notEqual(health.details.face, '');
      // ...and the request that needs it says so instead of failing obscurely.
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/detect', ...multipart([{ name: 'image', file: readFileSync(testdata('faces', 'identities', 'bbt_amy', 'amy1.png')) }]) });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'MODEL_UNAVAILABLE');
    } finally {
      await t.close();
    }
  });
});
