// What an op handler sees: the TF node's attributes, its inputs as ONNX value names, the
// inferred (TF-layout) shape of every value, and the graph being built.
import type { OnnxGraph, Shape } from './onnx-graph.js';
import type { TfjsAttr, TfjsNode, WeightData } from './tfjs-model.js';

/** A TF op the converter cannot express exactly; the message names the node. */
export class UnsupportedError extends Error {}

export interface ConvertContext {
  g: OnnxGraph;
  /** ONNX value of data input `i` (a Const input becomes an initializer holding its stored dtype). */
  input(node: TfjsNode, i: number): string;
  /** The value of data input `i`, which must be a Const. */
  constInput(node: TfjsNode, i: number): WeightData;
  /** Inferred shape of a value in TF layout (-1: known only at run time). */
  shape(value: string): Shape;
  /** Declares the node's own output (named after the TF node) with its inferred shape. */
  output(node: TfjsNode, shape: Shape): string;
  /** The NCHW view of an NHWC value (reuses the value a Conv produced before its transpose back). */
  toNchw(value: string): string;
  /** Emits the NCHW -> NHWC transpose into the node's output and remembers the NCHW source. */
  fromNchw(node: TfjsNode, nchw: string, nhwcShape: Shape): string;
}

export function dataInputs(node: TfjsNode): string[] {
  return (node.input ?? []).filter((i) => !i.startsWith('^'));
}

function raw(node: TfjsNode, key: string): TfjsAttr | undefined {
  return node.attr?.[key];
}

function missing(node: TfjsNode, key: string): never {
  throw new UnsupportedError(`${node.op} ${node.name}: attribute ${key} is missing`);
}

const decode = (s: string): string => Buffer.from(s, 'base64').toString('utf8');

export function attrString(node: TfjsNode, key: string, fallback?: string): string {
  const a = raw(node, key);
  if (a?.s !== undefined) return decode(a.s);
  return fallback ?? missing(node, key);
}

export function attrStrings(node: TfjsNode, key: string): string[] {
  return (raw(node, key)?.list?.s ?? []).map(decode);
}

export function attrInt(node: TfjsNode, key: string, fallback?: number): number {
  const a = raw(node, key);
  if (a?.i !== undefined) return Number(a.i);
  return fallback ?? missing(node, key);
}

export function attrInts(node: TfjsNode, key: string, fallback?: number[]): number[] {
  const a = raw(node, key);
  if (a?.list) return (a.list.i ?? []).map(Number);
  return fallback ?? missing(node, key);
}

export function attrFloat(node: TfjsNode, key: string, fallback?: number): number {
  const a = raw(node, key);
  if (a?.f !== undefined) return Number(a.f);
  return fallback ?? missing(node, key);
}

export function attrBool(node: TfjsNode, key: string, fallback?: boolean): boolean {
  const a = raw(node, key);
  if (a?.b !== undefined) return a.b;
  return fallback ?? missing(node, key);
}

/** Every image op here is NHWC; NCHW graphs are refused rather than silently mis-read. */
export function requireNhwc(node: TfjsNode): void {
  const format = attrString(node, 'data_format', 'NHWC');
  if (format !== 'NHWC') throw new UnsupportedError(`${node.op} ${node.name}: data_format ${format} (only NHWC is supported)`);
}

/** Element type of a TF dtype attribute, or throws for anything but float32. */
export function requireFloat(node: TfjsNode, key = 'T'): void {
  const t = raw(node, key)?.type;
  if (t !== undefined && t !== 'DT_FLOAT') throw new UnsupportedError(`${node.op} ${node.name}: ${key}=${t} (only float32 data is supported)`);
}
