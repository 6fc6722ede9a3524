import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  dir: string;
  /** PEM paths. */
  caCertFile: string;
  caCert: string;
  serverKey: string;
  serverCert: string;
  cleanup(): void;
}

/**
 * A throwaway CA and a server certificate for 127.0.0.1 / localhost signed by it,
 * made with the system openssl, as a building network with a private CA has.
 */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-pki-'));
  const p = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.crt'), '-days', '2', '-subj', '/CN=Vigil Test CA');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(p('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', p('server.csr'), '-CA', p('ca.crt'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('server.crt'), '-days', '2', '-extfile', p('ext.cnf'));
  return {
    dir,
    caCertFile: p('ca.crt'),
    caCert: readFileSync(p('ca.crt'), 'utf8'),
    serverKey: readFileSync(p('server.key'), 'utf8'),
    serverCert: readFileSync(p('server.crt'), 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
