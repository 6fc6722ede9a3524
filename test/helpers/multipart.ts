import { randomBytes } from 'node:crypto';

export type Part = { name: string; file: Buffer; filename?: string; contentType?: string } | { name: string; value: string };

/** A multipart/form-data body for app.inject (built by hand so tests control every byte). */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----vigil${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('file' in part) {
      chunks.push(
        Buffer.from(`Content-Disposition: form-data; name="${part.name}"; filename="${part.filename ?? 'upload.bin'}"\r\n` + `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`),
      );
      chunks.push(part.file, Buffer.from('\r\n'));
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
