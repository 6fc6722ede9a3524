import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/**
 * Makes intermediate tensors of a model extra graph outputs, so one run also returns them
 * (onnxruntime-node returns only declared outputs and cannot add any itself). bench/reid-separation.ts reads the
 * person detector's own feature maps this way, beside its boxes. The tensors are declared float with no
 * shape; a name no node produces is refused (a renamed export would otherwise fail later, at
 * the first run). The file on disk is not changed: the session opens the rewritten bytes.
 */
export function exposeOutputs(model: Uint8Array, names: readonly string[]): Uint8Array {
  const proto = onnx.ModelProto.decode(model);
  const graph = proto.graph;
  if (!graph) throw new Error('expose outputs: the model has no graph');
  const produced = new Set((graph.node ?? []).flatMap((n) => n.output ?? []));
  const declared = new Set((graph.output ?? []).map((o) => o.name ?? ''));
  graph.output = [...(graph.output ?? [])];
  for (const name of names) {
    if (!produced.has(name)) throw new Error(`expose outputs: no node produces ${name}`);
    if (declared.has(name)) continue;
    graph.output.push({ name, type: { tensorType: { elemType: onnx.TensorProto.DataType.FLOAT } } });
    declared.add(name);
  }
  return onnx.ModelProto.encode(proto).finish();
}
