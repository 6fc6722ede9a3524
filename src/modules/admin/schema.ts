import { Type } from 'typebox';
import { MODULE_NAMES } from '../../config/schema.js';
import { ConfigSchema } from '../../config/schema.js';

const perModule = <T extends ReturnType<typeof Type.Boolean> | ReturnType<typeof Type.String>>(t: T) =>
  Type.Object(Object.fromEntries(MODULE_NAMES.map((m) => [m, t])) as Record<(typeof MODULE_NAMES)[number], T>);

const ModuleStatusSchema = Type.Object({
  state: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('failed'), Type.Literal('disabled')], {
    description: 'ok; degraded (works, with a problem beside: a camera down, the MQTT broker away); failed (cannot do its job); disabled (in the configuration).',
  }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the module is degraded, failed or disabled; null when ok.' }),
});

export const HealthResponse = Type.Object({
  healthy: Type.Boolean({ description: 'True when every enabled module is operational (none failed) and the data disk is not full. The HTTP status is 200 when true, 503 when false.' }),
  modules: perModule(Type.Boolean()),
  details: perModule(Type.String()),
  status: Type.Object(Object.fromEntries(MODULE_NAMES.map((m) => [m, ModuleStatusSchema])) as Record<(typeof MODULE_NAMES)[number], typeof ModuleStatusSchema>, {
    description: 'Per-module state for machines (beside the spec fields).',
  }),
  storage: Type.Optional(
    Type.Object(
      {
        state: Type.Union([Type.Literal('ok'), Type.Literal('full'), Type.Literal('failed')]),
        free_bytes: Type.Union([Type.Number(), Type.Null()]),
        reserve_bytes: Type.Number(),
        detail: Type.String(),
      },
      { description: 'The data disk: ok; full (under server.storage_reserve_mb: writes answer 507 STORAGE_FULL, reads work); failed (a write failed; restart pending once space returns).' },
    ),
  ),
});

export const VersionResponse = Type.Object({
  name: Type.String(),
  version: Type.String({ description: 'package.json version' }),
  commit: Type.Union([Type.String(), Type.Null()], { description: "Git commit of the build (VIGIL_COMMIT, else the installation folder's git HEAD); null when unknown." }),
  node: Type.String(),
  models: Type.Array(
    Type.Object({
      name: Type.String(),
      file: Type.String(),
      sha256: Type.String({ description: 'sha256 the manifest pins (a loaded file was checked against it)' }),
      license: Type.String(),
      loaded: Type.Boolean({ description: 'Loaded by this run (false: not requested by the configuration, missing or corrupt; /admin/models says why)' }),
    }),
  ),
});

const ModelFile = Type.Object({
  name: Type.String(),
  file: Type.String(),
  loaded: Type.Boolean(),
  reason: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String({ description: 'Execution provider the session runs on (cpu, cuda, tensorrt).' })),
  fallback_reason: Type.Optional(Type.String()),
  license: Type.String(),
  commercial_use: Type.Boolean({ description: "The weights' licence permits commercial use (models/manifest.json; face.profile: commercial runs only such models)." }),
  sha256: Type.String(),
  load_ms: Type.Optional(Type.Number()),
  warmup_ms: Type.Optional(Type.Number()),
});

export const ModelsResponse = Type.Array(
  Type.Object({
    name: Type.String(),
    module: Type.String(),
    loaded: Type.Boolean({ description: 'false: the optional dependency is missing, the model file is absent or corrupt, or the component is not built.' }),
    reason: Type.Optional(Type.String({ description: 'Why it is not loaded (or a note when it is).' })),
    commercial_use: Type.Optional(Type.Boolean({ description: "Every model file of this component is licensed for commercial use (see each model's license)." })),
    models: Type.Optional(Type.Array(ModelFile)),
  }),
);

const sections = (ConfigSchema as unknown as { properties: Record<string, ReturnType<typeof Type.Object>> }).properties;
export const ConfigResponse = Type.Object(Object.fromEntries(MODULE_NAMES.map((m) => [m, sections[m]!])));

export const HwProfileResponse = Type.Object({
  name: Type.String({ description: 'Profile name (hw-profiles/<name>.yaml)' }),
  description: Type.String(),
  detected_by: Type.Union([Type.String(), Type.Null()], { description: 'Why this profile was chosen (server.hw_profile: auto), or null when set by name' }),
  execution_providers: Type.Array(Type.String(), { description: 'onnxruntime execution providers, in order of preference' }),
  intra_op_threads: Type.Integer({ description: '0: the cores shared out among the inference workers' }),
  ffmpeg: Type.Object({ binary: Type.String(), path: Type.Optional(Type.String()), hwaccel: Type.String(), device: Type.Optional(Type.String()) }),
});
