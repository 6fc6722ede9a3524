// ResizeBilinear. Keras' UpSampling2D writes its output size as Shape(x)[1:3] * factor, computed
// in the graph; the converter folds that pattern into a constant scale (exact: the factor is an
// integer constant and the input is x itself), so the model keeps a dynamic input size. A size
// given as a constant is taken as it is. Any other size computation is refused.
import { attrBool, dataInputs, UnsupportedError, type ConvertContext } from './context.js';
import type { OpHandler } from './ops-nn.js';
import type { TfjsAttr, TfjsModel, TfjsNode } from './tfjs-model.js';

/** Attribute the pre-pass adds: the integer scale of each spatial axis, as "sh,sw". */
const SCALE_ATTR = '_vigil_scale';

function intWeight(model: TfjsModel, name: string): number[] | undefined {
  const w = model.weights.get(name);
  return w && w.dtype === 'int32' ? Array.from(w.data) : undefined;
}

/**
 * Rewrites ResizeBilinear nodes whose size is Mul(StridedSlice(Shape(x), [1], [3], [1]), [a, b])
 * into nodes with one data input and the scales [a, b] as an attribute, so the shape arithmetic
 * (int32 ops the converter does not carry) is no longer reached from the outputs.
 */
export function foldUpsamplingSizes(model: TfjsModel, byName: Map<string, TfjsNode>): void {
  for (const node of byName.values()) {
    if (node.op !== 'ResizeBilinear') continue;
    const [x, size] = dataInputs(node);
    const mul = size === undefined ? undefined : byName.get(size);
    if (!x || !mul || mul.op !== 'Mul') continue;
    const [sliceName, factorName] = dataInputs(mul);
    const slice = sliceName === undefined ? undefined : byName.get(sliceName);
    const factor = factorName === undefined ? undefined : intWeight(model, factorName);
    if (!slice || slice.op !== 'StridedSlice' || !factor || factor.length !== 2) continue;
    const [shapeName, b, e, s] = dataInputs(slice);
    const shapeOf = shapeName === undefined ? undefined : byName.get(shapeName);
    if (!shapeOf || shapeOf.op !== 'Shape' || dataInputs(shapeOf)[0] !== x) continue;
    const bounds = [b, e, s].map((n) => (n === undefined ? undefined : intWeight(model, n)?.join(',')));
    const masks = ['begin_mask', 'end_mask', 'shrink_axis_mask', 'ellipsis_mask', 'new_axis_mask'].some((k) => Number(slice.attr?.[k]?.i ?? 0) !== 0);
    if (bounds.join(';') !== '1;3;1' || masks) continue;
    const attr: Record<string, TfjsAttr> = { ...(node.attr ?? {}), [SCALE_ATTR]: { s: Buffer.from(factor.join(',')).toString('base64') } };
    byName.set(node.name, { ...node, input: [x], attr });
  }
}

/**
 * TF ResizeBilinear -> ONNX Resize (linear) on the NCHW view. half_pixel_centers is ONNX's
 * half_pixel, align_corners its align_corners, neither (TF1's legacy rule) asymmetric.
 */
function resizeBilinear(node: TfjsNode, ctx: ConvertContext): void {
  const g = ctx.g;
  const x = ctx.input(node, 0);
  const [n, h, w, c] = ctx.shape(x) as [number, number, number, number];
  const alignCorners = attrBool(node, 'align_corners', false);
  const halfPixel = attrBool(node, 'half_pixel_centers', false);
  const mode = alignCorners ? 'align_corners' : halfPixel ? 'half_pixel' : 'asymmetric';
  const scaleAttr = node.attr?.[SCALE_ATTR]?.s;
  const resized = g.fresh(`${node.name}/nchw`);
  const attrs = { mode: { string: 'linear' }, coordinate_transformation_mode: { string: mode } };
  let outHW: [number, number];
  if (scaleAttr !== undefined) {
    const [sh, sw] = Buffer.from(scaleAttr, 'base64').toString('utf8').split(',').map(Number) as [number, number];
    g.node('Resize', [ctx.toNchw(x), '', g.float(`${node.name}/scales`, [1, 1, sh, sw])], [resized], attrs);
    outHW = [h < 0 ? -1 : h * sh, w < 0 ? -1 : w * sw];
  } else {
    if (dataInputs(node).length !== 2) throw new UnsupportedError(`${node.op} ${node.name}: ${dataInputs(node).length} inputs`);
    const size = ctx.constInput(node, 1);
    if (size.dtype !== 'int32' || size.data.length !== 2) throw new UnsupportedError(`${node.op} ${node.name}: the size must be a constant pair or Shape(x)[1:3] * constant`);
    outHW = [size.data[0]!, size.data[1]!];
    if (n < 0 || c < 0) throw new UnsupportedError(`${node.op} ${node.name}: constant size needs a known batch and channel count`);
    g.node('Resize', [ctx.toNchw(x), '', '', g.int64(`${node.name}/sizes`, [n, c, outHW[0], outHW[1]])], [resized], attrs);
  }
  ctx.fromNchw(node, resized, [n, outHW[0], outHW[1], c]);
}

export const RESIZE_OPS: Record<string, OpHandler> = { ResizeBilinear: resizeBilinear };
