// A minimal HTTPS receiver in its own process (the second core), answering 200 at once.
// Usage: node --import tsx bench/lib/https-sink.ts <key.pem> <cert.pem>; prints {"port":N}.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const [keyFile, certFile] = process.argv.slice(2);
if (!keyFile || !certFile) throw new Error('usage: https-sink.ts <key.pem> <cert.pem>');
let count = 0;
const server = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile), keepAlive: true, keepAliveTimeout: 30_000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    count++;
    res.writeHead(200, { 'content-length': '0' });
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  process.stderr.write(`sink received ${count}\n`);
  process.exit(0);
});
