/**
 * Worker-thread side of InferenceWorker: owns onnxruntime sessions and runs them here, so
 * inference (synchronous inside onnxruntime-node's run()) never holds the main event loop.
 */
import { parentPort } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import type { HwProfile } from './hw-profile.js';
import { createSession } from './onnx-session.js';
import type { WireTensor, WorkerReply, WorkerRequest } from './inference-worker.js';
import { fillImageTensor, imageFeedSize, type ImageFeed } from './image-feed.js';
import { feedBuffer, ImageFeedArena } from './image-feed-arena.js';
import { reduceLastAxis } from './last-axis-reduction.js';

const sessions = new Map<string, ort.InferenceSession>();
/**
 * Image inputs by model and size, refilled on every run (image-feed.ts) in WebAssembly memory
 * (image-feed-arena.ts). A worker runs one model at a time (the pool gives it one run at a
 * time); a buffer the arena cannot hand out now is replaced by a fresh array.
 */
let arena = new ImageFeedArena();

async function runWithImage(session: ort.InferenceSession, key: string, feeds: Record<string, ort.Tensor>, image: ImageFeed): Promise<ort.InferenceSession.ReturnType> {
  const buffer = feedBuffer(key, image);
  const lease = arena.lease(buffer.key, image, buffer.capacity);
  try {
    const data = lease?.data ?? fillImageTensor(image, new Float32Array(imageFeedSize(image)));
    feeds[image.name] = new ort.Tensor('float32', data, image.dims);
    return await session.run(feeds);
  } finally {
    lease?.release();
  }
}
/** Opens and runs under way: close waits for them, as onnxruntime-node aborts the process when a session creation completes in a terminated worker. */
const inflight = new Set<Promise<unknown>>();

function toWire(name: string, t: ort.Tensor): WireTensor {
  return { name, type: t.type as WireTensor['type'], data: t.data as WireTensor['data'], dims: [...t.dims] };
}

async function handle(msg: WorkerRequest): Promise<{ reply: WorkerReply; transfer: ArrayBuffer[] }> {
  if (msg.op === 'open') {
    const { session, provider, fallback_reason } = await createSession(msg.file, {
      profile: msg.profile as HwProfile,
      deviceId: msg.deviceId,
      intraOpThreads: msg.intraOpThreads,
      freeInputDims: msg.freeInputDims === true,
      foldAffine: msg.foldAffine === true,
    });
    sessions.set(msg.key, session);
    return {
      reply: { id: msg.id, ok: true, inputNames: [...session.inputNames], outputNames: [...session.outputNames], provider, ...(fallback_reason ? { fallback_reason } : {}) },
      transfer: [],
    };
  }
  if (msg.op === 'close') {
    await Promise.allSettled([...inflight]);
    for (const s of sessions.values()) await s.release();
    sessions.clear();
    arena = new ImageFeedArena();
    return { reply: { id: msg.id, ok: true }, transfer: [] };
  }
  const session = sessions.get(msg.key);
  if (!session) throw new Error(`session ${msg.key} is not open in the inference worker`);
  const feeds: Record<string, ort.Tensor> = {};
  for (const f of msg.feeds) feeds[f.name] = new ort.Tensor(f.type, f.data, f.dims);
  const out = msg.image ? await runWithImage(session, msg.key, feeds, msg.image) : await session.run(feeds);
  const reduce = msg.reduce;
  if (!reduce) {
    const outputs = Object.entries(out).map(([name, t]) => toWire(name, t));
    return { reply: { id: msg.id, ok: true, outputs }, transfer: outputs.map((o) => o.data.buffer as ArrayBuffer) };
  }
  const wide = out[reduce.output];
  if (!wide || wide.type !== 'float32') throw new Error(`output ${reduce.output} is not a float32 output of ${msg.key}`);
  const reduced = reduceLastAxis(wide.data as Float32Array, wide.dims, reduce.keep);
  const outputs = Object.entries(out)
    .filter(([name]) => name !== reduce.output)
    .map(([name, t]) => toWire(name, t));
  const transfer = [...outputs.map((o) => o.data.buffer as ArrayBuffer), reduced.argmax.buffer, reduced.max.buffer, reduced.kept.buffer] as ArrayBuffer[];
  return { reply: { id: msg.id, ok: true, outputs, reduced }, transfer };
}

parentPort!.on('message', (msg: WorkerRequest) => {
  const work = handle(msg);
  if (msg.op !== 'close') {
    inflight.add(work);
    void work.catch(() => undefined).finally(() => inflight.delete(work));
  }
  work.then(
    ({ reply, transfer }) => parentPort!.postMessage(reply, transfer),
    (err: unknown) => parentPort!.postMessage({ id: msg.id, ok: false, error: (err as Error).message ?? String(err) } satisfies WorkerReply),
  );
});
