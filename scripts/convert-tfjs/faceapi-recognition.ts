// Builds an ONNX file from face-api's face recognition weights (a port of dlib's
// dlib_face_recognition_resnet_model_v1: ResNet, 29 conv layers, 150x150 input, 128-D).
// face-api ships this net not as a TFJS graph model but as a weights manifest plus a
// hand-written forward pass (src/faceRecognitionNet/*.ts), so the graph is written here after
// that source, layer by layer; the weights are decoded by tfjs-model.ts exactly as tfjs-core
// does (uint8-quantised). Differences from face-api that do not change the arithmetic:
// - NCHW end to end (no NHWC transposes);
// - each "conv + bias, then scale layer (x * w + b)" is folded into one Conv: the filters are
//   multiplied by w per output channel and the bias becomes bias * w + b;
// - face-api's mean subtraction and division by 255 are the graph's first two nodes, so the
//   input is the aligned 150x150 face as raw RGB 0..255 floats, NCHW.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OnnxGraph } from './onnx-graph.js';
import { decodeWeights, type TfjsWeightSpec, type WeightData } from './tfjs-model.js';

export const FACEAPI_INPUT = 150;
/** face-api's normalize(batch, meanRgb).div(255) (dlib's input layer uses the same means). */
const MEAN_RGB = [122.782, 117.001, 104.298];

type Weights = Map<string, WeightData>;

function f32(w: Weights, name: string): { shape: number[]; data: Float32Array } {
  const v = w.get(name);
  if (!v || v.dtype !== 'float32') throw new Error(`face-api recognition weights: ${name} is missing`);
  return v;
}

interface Builder {
  g: OnnxGraph;
  w: Weights;
  /** Current spatial size (the input size is fixed, so every shape is known here). */
  size: number;
  channels: number;
}

/** conv (TF padding 'same' or 'valid') + bias + scale layer, optionally ReLU; returns the output value. */
function convLayer(b: Builder, x: string, prefix: string, stride: number, relu: boolean, padding: 'same' | 'valid', inSize: number): { out: string; size: number } {
  const filters = f32(b.w, `${prefix}/conv/filters`);
  const bias = f32(b.w, `${prefix}/conv/bias`);
  const sw = f32(b.w, `${prefix}/scale/weights`);
  const sb = f32(b.w, `${prefix}/scale/biases`);
  const [kh, kw, cin, cout] = filters.shape as [number, number, number, number];
  // HWIO -> OIHW, folding the scale weight of each output channel.
  const oihw = new Float32Array(cout * cin * kh * kw);
  for (let y = 0; y < kh; y++)
    for (let x2 = 0; x2 < kw; x2++)
      for (let i = 0; i < cin; i++) for (let o = 0; o < cout; o++) oihw[((o * cin + i) * kh + y) * kw + x2] = filters.data[((y * kw + x2) * cin + i) * cout + o]! * sw.data[o]!;
  const folded = new Float32Array(cout);
  for (let o = 0; o < cout; o++) folded[o] = bias.data[o]! * sw.data[o]! + sb.data[o]!;
  const W = b.g.initializer(b.g.fresh(`${prefix}/W`), 'float32', [cout, cin, kh, kw], oihw);
  const B = b.g.initializer(b.g.fresh(`${prefix}/B`), 'float32', [cout], folded);
  let pads = [0, 0, 0, 0];
  let outSize: number;
  if (padding === 'valid') outSize = Math.floor((inSize - kh) / stride) + 1;
  else {
    // TF 'same': total padding max(k - s, 0) at stride 1, the extra pixel at the end.
    outSize = Math.ceil(inSize / stride);
    const total = Math.max((outSize - 1) * stride + kh - inSize, 0);
    const lo = Math.floor(total / 2);
    pads = [lo, lo, total - lo, total - lo];
  }
  const conv = b.g.fresh(`${prefix}/conv`);
  b.g.node('Conv', [x, W, B], [conv], { kernel_shape: { ints: [kh, kw] }, strides: { ints: [stride, stride] }, pads: { ints: pads } });
  if (!relu) return { out: conv, size: outSize };
  const r = b.g.fresh(`${prefix}/relu`);
  b.g.node('Relu', [conv], [r]);
  return { out: r, size: outSize };
}

function add(b: Builder, a: string, c: string, name: string, relu: boolean): string {
  const s = b.g.fresh(`${name}/add`);
  b.g.node('Add', [a, c], [s]);
  if (!relu) return s;
  const r = b.g.fresh(`${name}/relu`);
  b.g.node('Relu', [s], [r]);
  return r;
}

/** face-api residual(): conv, conv (no ReLU), + x, ReLU. */
function residual(b: Builder, x: string, prefix: string): string {
  const c1 = convLayer(b, x, `${prefix}/conv1`, 1, true, 'same', b.size);
  const c2 = convLayer(b, c1.out, `${prefix}/conv2`, 1, false, 'same', c1.size);
  return add(b, c2.out, x, prefix, true);
}

/**
 * face-api residualDown(): a stride-2 'valid' conv, a conv, plus the 2x2 average pool of x; the
 * pooled branch is zero-padded in channels and the conv branch zero-padded by one row and column
 * at the end when the pool's output is larger (odd sizes), as face-api concatenates zeros.
 */
function residualDown(b: Builder, x: string, prefix: string): string {
  const c1 = convLayer(b, x, `${prefix}/conv1`, 2, true, 'valid', b.size);
  const c2 = convLayer(b, c1.out, `${prefix}/conv2`, 1, false, 'same', c1.size);
  const cout = f32(b.w, `${prefix}/conv2/conv/filters`).shape[3]!;
  let out = c2.out;
  const pooledSize = Math.floor(b.size / 2);
  let pooled = b.g.fresh(`${prefix}/pool`);
  b.g.node('AveragePool', [x], [pooled], { kernel_shape: { ints: [2, 2] }, strides: { ints: [2, 2] } });
  if (pooledSize !== c2.size) {
    const grow = pooledSize - c2.size;
    if (grow !== 1) throw new Error(`${prefix}: unexpected size ${c2.size} against pooled ${pooledSize}`);
    const padded = b.g.fresh(`${prefix}/pad_hw`);
    b.g.node('Pad', [out, b.g.int64(`${prefix}/pads_hw`, [0, 0, 0, 0, 0, 0, 1, 1])], [padded]);
    out = padded;
  }
  if (cout !== b.channels) {
    const padded = b.g.fresh(`${prefix}/pad_c`);
    b.g.node('Pad', [pooled, b.g.int64(`${prefix}/pads_c`, [0, 0, 0, 0, 0, cout - b.channels, 0, 0])], [padded]);
    pooled = padded;
  }
  b.size = pooledSize;
  b.channels = cout;
  return add(b, pooled, out, prefix, true);
}

/** The ONNX bytes for face-api's FaceRecognitionNet with the given decoded weights. */
export function buildFaceapiRecognition(w: Weights, source: string): Uint8Array {
  const g = new OnnxGraph();
  const input = g.claim('input');
  g.input(input, 'float32', [-1, 3, FACEAPI_INPUT, FACEAPI_INPUT]);
  const centred = g.fresh('centred');
  g.node('Sub', [input, g.float('mean_rgb', MEAN_RGB, [1, 3, 1, 1])], [centred]);
  const scaled = g.fresh('scaled');
  g.node('Mul', [centred, g.float('inv255', [1 / 255], [])], [scaled]);
  const b: Builder = { g, w, size: FACEAPI_INPUT, channels: 3 };
  const stem = convLayer(b, scaled, 'conv32_down', 2, true, 'valid', b.size);
  b.size = stem.size;
  b.channels = 32;
  let x = g.fresh('maxpool');
  g.node('MaxPool', [stem.out], [x], { kernel_shape: { ints: [3, 3] }, strides: { ints: [2, 2] } });
  b.size = Math.floor((b.size - 3) / 2) + 1;
  for (const layer of ['conv32_1', 'conv32_2', 'conv32_3']) x = residual(b, x, layer);
  x = residualDown(b, x, 'conv64_down');
  for (const layer of ['conv64_1', 'conv64_2', 'conv64_3']) x = residual(b, x, layer);
  x = residualDown(b, x, 'conv128_down');
  for (const layer of ['conv128_1', 'conv128_2']) x = residual(b, x, layer);
  x = residualDown(b, x, 'conv256_down');
  for (const layer of ['conv256_1', 'conv256_2']) x = residual(b, x, layer);
  x = residualDown(b, x, 'conv256_down_out');
  const gap = g.fresh('gap');
  g.node('GlobalAveragePool', [x], [gap]);
  const flat = g.fresh('flat');
  g.node('Flatten', [gap], [flat], { axis: { int: 1 } });
  const fc = f32(w, 'fc');
  const out = g.claim('embedding');
  g.node('MatMul', [flat, g.initializer('fc', 'float32', fc.shape, fc.data)], [out]);
  g.output(out, 'float32', [-1, fc.shape[1]!]);
  return g.encode({ producerName: 'vigil-convert-tfjs', producerVersion: '1', docString: `face-api FaceRecognitionNet from ${source}`, graphName: 'faceapi_recognition' });
}

/** Reads a face-api weights manifest (JSON array of {paths, weights}) and its shards. */
export function loadFaceapiWeights(manifestPath: string): Weights {
  const groups = JSON.parse(readFileSync(manifestPath, 'utf8')) as { paths: string[]; weights: TfjsWeightSpec[] }[];
  const dir = dirname(manifestPath);
  const bytes = Buffer.concat(groups.flatMap((gr) => gr.paths).map((p) => readFileSync(join(dir, p))));
  return decodeWeights(
    groups.flatMap((gr) => gr.weights),
    new Uint8Array(bytes),
  );
}
