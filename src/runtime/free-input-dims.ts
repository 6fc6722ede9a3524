import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/**
 * Declares a fully-convolutional detector's input height and width (and its outputs' anchor
 * count) symbolic, so onnxruntime runs it on inputs of other sizes. YOLOX as exported
 * (MANIFEST: person_det_yolox_nano_416.onnx) declares 1x3x416x416, but its upsampling takes
 * scales, its head reshapes to [1, 85, -1] and its Focus slices run to the end: any input
 * whose sides are multiples of 32 works, so the detector can take a frame at its own aspect
 * (a 16:9 camera on 416x256 instead of 416x416, most of it padding) or larger, for small far
 * people. The file on disk is not changed: the session opens the rewritten bytes.
 * A graph that reshapes to a fully fixed shape (no -1) would break at another size and is
 * refused, as is one whose input is not NCHW or whose outputs have no middle dims to free.
 */
export function freeSpatialInputDims(model: Uint8Array): Uint8Array {
  const proto = onnx.ModelProto.decode(model);
  const graph = proto.graph;
  const input = graph?.input?.[0]?.type?.tensorType?.shape?.dim;
  if (!graph || !input || input.length !== 4) throw new Error('free input dims: the model has no NCHW input');
  const inits = new Map((graph.initializer ?? []).map((t) => [t.name ?? '', t]));
  for (const node of graph.node ?? []) {
    if (node.opType !== 'Reshape') continue;
    const t = inits.get(node.input?.[1] ?? '');
    if (!t) continue;
    const v = t.rawData && t.rawData.length > 0 ? Array.from(new BigInt64Array(Uint8Array.from(t.rawData).buffer)).map(Number) : (t.int64Data ?? []).map(Number);
    if (!v.includes(-1)) throw new Error(`free input dims: Reshape ${node.name ?? ''} has the fixed shape [${v.join(', ')}], the model only runs at its declared size`);
  }
  input[2] = { dimParam: 'height' };
  input[3] = { dimParam: 'width' };
  for (const out of graph.output ?? []) {
    const dims = out.type?.tensorType?.shape?.dim ?? [];
    // [batch, anchors..., channels]: everything between the first and the last follows the input's size.
    for (let i = 1; i < dims.length - 1; i++) dims[i] = { dimParam: `${out.name ?? 'out'}_${i}` };
  }
  // Intermediate shapes the exporter inferred, if any, would pin the old size.
  graph.valueInfo = [];
  return onnx.ModelProto.encode(proto).finish();
}
