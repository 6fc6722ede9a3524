// Command line: build face-api's face recognition net (a weights manifest, not a graph model) as ONNX.
//   node --import tsx scripts/convert-tfjs/faceapi-cli.ts <weights-manifest.json> <out.onnx> [--source <label>]
// <label> goes into the ONNX doc string; it must not depend on the machine (sha256 stays stable).
import { renameSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { buildFaceapiRecognition, loadFaceapiWeights } from './faceapi-recognition.js';

const args = process.argv.slice(2);
const sourceAt = args.indexOf('--source');
const source = sourceAt >= 0 ? args[sourceAt + 1] : undefined;
const [manifestPath, outPath] = args.filter((_, i) => sourceAt < 0 || (i !== sourceAt && i !== sourceAt + 1));
if (!manifestPath || !outPath) {
  console.error('usage: faceapi-cli.ts <weights-manifest.json> <out.onnx> [--source <label>]');
  process.exit(64);
}
try {
  const bytes = buildFaceapiRecognition(loadFaceapiWeights(manifestPath), source ?? basename(manifestPath));
  writeFileSync(`${outPath}.tmp`, bytes);
  renameSync(`${outPath}.tmp`, outPath);
  console.log(JSON.stringify({ out: outPath, bytes: bytes.byteLength }));
} catch (err) {
  console.error(`faceapi-cli: ${manifestPath}: ${(err as Error).message}`);
  process.exit(1);
}
