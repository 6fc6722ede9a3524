import { readFile } from 'node:fs/promises';
// Namespace import: identical under Node's ESM loader, and also correct where tsx's CommonJS
// hook loads this file (the inference worker in tests), where a default import is undefined.
import * as ort from 'onnxruntime-node';
import type { HwProfile } from './hw-profile.js';
import { rewriteForCpu } from './cpu-graph-rewrite.js';
import { freeSpatialInputDims } from './free-input-dims.js';
import { foldAffine } from './affine-fold.js';

export interface SessionResult {
  session: ort.InferenceSession;
  /** The provider the session actually runs on. */
  provider: string;
  /** Why the profile's preferred provider was not used, when it was not. */
  fallback_reason?: string;
}

export interface SessionOptions {
  profile: HwProfile;
  /** GPU device id for GPU providers (face.ctx_id); -1 forces the CPU. */
  deviceId: number;
  /** onnxruntime intra-op threads (the pool's share of the cores, or a per-model setting); unset lets onnxruntime pick. */
  intraOpThreads?: number;
  /** Open the model with its input's height and width free (free-input-dims.ts): a fully-convolutional detector fed at other sizes. */
  freeInputDims?: boolean;
  /** On the CPU provider, fold the model's scalar affine and hardswish passes into fewer operators (affine-fold.ts): values rounded differently. */
  foldAffine?: boolean;
}

function providerList(names: string[], deviceId: number): ort.InferenceSession.ExecutionProviderConfig[] {
  return names.map((name) => (name === 'cuda' || name === 'tensorrt' ? { name, deviceId } : name)) as ort.InferenceSession.ExecutionProviderConfig[];
}

/** The model as the CPU provider should get it (cpu-graph-rewrite.ts, and affine-fold.ts where asked). */
async function cpuModel(file: string, freeInputDims = false, fold = false): Promise<Uint8Array> {
  const bytes = rewriteForCpu(await modelBytes(file, freeInputDims)).bytes;
  return fold ? foldAffine(bytes).bytes : bytes;
}

async function modelBytes(file: string, freeInputDims: boolean): Promise<Uint8Array> {
  const bytes = await readFile(file);
  return freeInputDims ? freeSpatialInputDims(bytes) : bytes;
}

/**
 * One session per model file, with the hw-profile's execution providers and a CPU
 * fallback when a provider is missing (onnxruntime-node installed without its CUDA
 * binaries, say), recorded so /admin/models can say why. GPU providers get the file as it
 * is; CPU sessions get it with the patterns whose CPU kernels are slow rewritten.
 */
export async function createSession(file: string, options: SessionOptions): Promise<SessionResult> {
  const base: ort.InferenceSession.SessionOptions = {
    graphOptimizationLevel: 'all',
    // SCRFD's dynamic shapes make onnxruntime warn on every run; keep the journal for errors.
    logSeverityLevel: 3,
    // Every session has its own intra-op pool whose threads spin after a run; with several
    // models run back to back (a liveness frame runs six) the spinning pool steals the cores
    // from the next model. Measured on the shared 2-core box, one liveness frame p50: 441-568
    // ms spinning vs 63-88 ms not (docs/benchmarks.md, "Runtime").
    extra: { session: { intra_op: { allow_spinning: '0' } } },
    ...(options.intraOpThreads ? { intraOpNumThreads: options.intraOpThreads } : {}),
  };
  const preferred = options.deviceId < 0 ? ['cpu'] : options.profile.execution_providers;
  if (preferred.length === 1 && preferred[0] === 'cpu') {
    return { session: await ort.InferenceSession.create(await cpuModel(file, options.freeInputDims, options.foldAffine), { ...base, executionProviders: ['cpu'] }), provider: 'cpu' };
  }
  try {
    const gpu = { ...base, executionProviders: providerList(preferred, options.deviceId) };
    const session = options.freeInputDims ? await ort.InferenceSession.create(await modelBytes(file, true), gpu) : await ort.InferenceSession.create(file, gpu);
    return { session, provider: preferred[0] ?? 'cpu' };
  } catch (err) {
    const session = await ort.InferenceSession.create(await cpuModel(file, options.freeInputDims, options.foldAffine), { ...base, executionProviders: ['cpu'] });
    return { session, provider: 'cpu', fallback_reason: `${preferred.join('/')} unavailable: ${(err as Error).message.split('\n')[0]}` };
  }
}
