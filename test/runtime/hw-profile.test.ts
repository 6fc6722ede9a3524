import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detectProfile, listProfiles, readProfile, resolveProfile, type BoxProbe } from '../../src/runtime/hw-profile.js';

const box = (paths: string[], model = '', gpuVendors: string[] = []): BoxProbe => ({ exists: (p) => paths.includes(p), deviceTreeModel: () => model, gpuVendors });

describe('hardware profiles', () => {
  it('ships the four profiles and each one validates', () => {
    const names = listProfiles();
    for (const n of ['x86-cpu', 'x86-nvidia', 'jetson-orin', 'intel-vaapi']) {
      assert.ok(names.includes(n), n);
      const p = readProfile(n);
      assert.equal(p.name, n);
      assert.ok(p.execution_providers.includes('cpu'), `${n} must keep a CPU fallback`);
    }
  });

  it('auto-detects a Jetson by its Tegra release file or device-tree model', () => {
    assert.equal(detectProfile(box(['/etc/nv_tegra_release'])).name, 'jetson-orin');
    assert.equal(detectProfile(box([], 'NVIDIA Jetson AGX Orin Developer Kit')).name, 'jetson-orin');
  });

  it('auto-detects an NVIDIA GPU, then VAAPI, else CPU', () => {
    assert.equal(detectProfile(box(['/dev/nvidia0', '/dev/dri/renderD128'])).name, 'x86-nvidia');
    assert.equal(detectProfile(box(['/dev/dri/renderD128'])).name, 'intel-vaapi');
    // An NVIDIA card that systeminformation sees before the driver's device node exists.
    assert.equal(detectProfile(box([], '', ['NVIDIA Corporation'])).name, 'x86-nvidia');
    const cpu = detectProfile(box([]));
    assert.equal(cpu.name, 'x86-cpu');
    assert.equal(cpu.detected_by, 'no accelerator found');
  });

  it('decides providers and the ffmpeg decode preset', () => {
    const nv = readProfile('x86-nvidia');
    assert.deepEqual(nv.execution_providers, ['tensorrt', 'cuda', 'cpu']);
    assert.equal(nv.ffmpeg.hwaccel, 'cuda');
    assert.equal(readProfile('jetson-orin').ffmpeg.hwaccel, 'jetson');
    assert.equal(readProfile('intel-vaapi').ffmpeg.hwaccel, 'vaapi');
    assert.equal(readProfile('x86-cpu').ffmpeg.binary, 'bundled');
  });

  it('rejects an unknown profile name with the list of known ones', () => {
    assert.throws(() => resolveProfile('tpu-9000'), /unknown hw_profile "tpu-9000".*x86-cpu/);
    assert.throws(() => resolveProfile('../etc/passwd'), /unknown hw_profile/);
  });
});
