import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Type, type Static } from 'typebox';
import { parse as parseYaml } from 'yaml';
import { packageRoot } from '../core/package-root.js';

export const HwAccel = Type.Union([Type.Literal('none'), Type.Literal('cuda'), Type.Literal('jetson'), Type.Literal('vaapi'), Type.Literal('qsv')]);

export const HwProfileSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    execution_providers: Type.Array(Type.Union([Type.Literal('tensorrt'), Type.Literal('cuda'), Type.Literal('dml'), Type.Literal('coreml'), Type.Literal('cpu')]), { minItems: 1 }),
    /** onnxruntime intra-op threads per session; 0 = the cores shared out among the inference workers. */
    intra_op_threads: Type.Integer({ minimum: 0 }),
    ffmpeg: Type.Object(
      {
        binary: Type.Union([Type.Literal('bundled'), Type.Literal('system')]),
        path: Type.Optional(Type.String()),
        hwaccel: HwAccel,
        device: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    detect: Type.Object(
      {
        any_path: Type.Optional(Type.Array(Type.String())),
        device_tree_model_contains: Type.Optional(Type.String()),
        gpu_vendor_contains: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type HwProfile = Static<typeof HwProfileSchema> & { detected_by?: string };
export type HwAccelName = Static<typeof HwAccel>;

const validate = new Ajv({ strict: false, allErrors: true }).compile<HwProfile>(HwProfileSchema);

export function profilesDir(): string {
  return join(packageRoot(), 'hw-profiles');
}

export function listProfiles(): string[] {
  return readdirSync(profilesDir())
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -5))
    .sort();
}

export function readProfile(name: string): HwProfile {
  const file = join(profilesDir(), `${name}.yaml`);
  if (!/^[a-z0-9-]+$/.test(name) || !existsSync(file)) {
    throw new Error(`unknown hw_profile "${name}" (available: auto, ${listProfiles().join(', ')})`);
  }
  const parsed: unknown = parseYaml(readFileSync(file, 'utf8'));
  if (!validate(parsed)) {
    throw new Error(`hw-profiles/${name}.yaml is invalid: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
  }
  return parsed;
}

/** What the auto-detection looks at; injectable so tests can describe any box. */
export interface BoxProbe {
  exists(path: string): boolean;
  deviceTreeModel(): string;
  /** Vendors of the graphics controllers found (systeminformation), e.g. ['NVIDIA Corporation']. */
  gpuVendors?: string[];
}

/** Asks systeminformation for the graphics controllers (lspci / nvidia-smi underneath), bounded in time. */
export async function probeGpuVendors(timeoutMs = 5000): Promise<string[]> {
  const si = await import('systeminformation');
  const timeout = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), timeoutMs).unref());
  const probe = si.default
    .graphics()
    .then((g) => g.controllers.map((c) => c.vendor).filter((v) => v.length > 0))
    .catch(() => []);
  return Promise.race([probe, timeout]);
}

export const realBox: BoxProbe = {
  exists: (p) => existsSync(p),
  deviceTreeModel: () => {
    try {
      return readFileSync('/proc/device-tree/model', 'utf8');
    } catch {
      return '';
    }
  },
};

/**
 * hw_profile: auto. Most specific first: a Jetson (Tegra release file or device-tree
 * model), then an NVIDIA driver or controller, then a DRM render node for VAAPI, else CPU.
 */
export function detectProfile(probe: BoxProbe = realBox): HwProfile {
  for (const name of ['jetson-orin', 'x86-nvidia', 'intel-vaapi']) {
    const profile = readProfile(name);
    const path = profile.detect.any_path?.find((p) => probe.exists(p));
    if (path) return { ...profile, detected_by: `found ${path}` };
    const needle = profile.detect.device_tree_model_contains;
    if (needle && probe.deviceTreeModel().includes(needle)) return { ...profile, detected_by: `device-tree model contains ${needle}` };
    const vendor = profile.detect.gpu_vendor_contains;
    const gpu = vendor ? probe.gpuVendors?.find((v) => v.toLowerCase().includes(vendor.toLowerCase())) : undefined;
    if (gpu) return { ...profile, detected_by: `graphics controller by ${gpu}` };
  }
  return { ...readProfile('x86-cpu'), detected_by: 'no accelerator found' };
}

export function resolveProfile(setting: string, probe: BoxProbe = realBox): HwProfile {
  return setting === 'auto' ? detectProfile(probe) : { ...readProfile(setting), detected_by: 'configured' };
}
