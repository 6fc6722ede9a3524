// Command line: convert one TFJS graph model to ONNX.
//   node --import tsx scripts/convert-tfjs/cli.ts <model.json> <out.onnx> [--source <label>] [--outputs <node,node>]
// <label> is written into the
// ONNX doc string (default: the json file name); it must not depend on the machine, so that the
// output's sha256 is the same everywhere. Exit 2 on an unsupported model, with the reason.
import { writeFileSync, renameSync } from 'node:fs';
import { basename } from 'node:path';
import { convertTfjsModel } from './convert.js';
import { UnsupportedError } from './context.js';
import { loadTfjsModel } from './tfjs-model.js';

const args = process.argv.slice(2);
const sourceAt = args.indexOf('--source');
const source = sourceAt >= 0 ? args[sourceAt + 1] : undefined;
const outputsAt = args.indexOf('--outputs');
const outputs = outputsAt >= 0 ? args[outputsAt + 1]?.split(',') : undefined;
const flagged = [sourceAt, outputsAt].filter((i) => i >= 0).flatMap((i) => [i, i + 1]);
const files = args.filter((_, i) => !flagged.includes(i));
const [jsonPath, outPath] = files;
if (!jsonPath || !outPath) {
  console.error('usage: cli.ts <model.json> <out.onnx> [--source <label>] [--outputs <node,node>]');
  process.exit(64);
}
try {
  const result = convertTfjsModel(loadTfjsModel(jsonPath), { source: source ?? basename(jsonPath), ...(outputs ? { outputs } : {}) });
  writeFileSync(`${outPath}.tmp`, result.bytes);
  renameSync(`${outPath}.tmp`, outPath);
  console.log(JSON.stringify({ out: outPath, bytes: result.bytes.byteLength, inputs: result.inputs, outputs: result.outputs, ops: result.ops }));
} catch (err) {
  console.error(`convert-tfjs: ${jsonPath}: ${(err as Error).message}`);
  process.exit(err instanceof UnsupportedError ? 2 : 1);
}
