import { existsSync, readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/** Where Debian/Ubuntu and RHEL-family systems keep the system CA bundle. */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

/**
 * The CA list for outgoing TLS: Node's bundled roots, the system bundle (which
 * carries CAs an administrator installed with update-ca-certificates), the file in
 * NODE_EXTRA_CA_CERTS, and an optional extra PEM file. Passing `ca` to Node replaces
 * its defaults (NODE_EXTRA_CA_CERTS included), so all four are joined here. Throws with
 * the file name when the extra file cannot be read; an unreadable NODE_EXTRA_CA_CERTS is
 * skipped, as Node itself does (it only warns).
 */
export function trustedCAs(extraCaFile: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const cas = [...rootCertificates];
  for (const bundle of SYSTEM_BUNDLES) {
    if (existsSync(bundle)) {
      try {
        cas.push(readFileSync(bundle, 'utf8'));
      } catch {
        // an unreadable system bundle leaves Node's own roots
      }
      break;
    }
  }
  const nodeExtra = env.NODE_EXTRA_CA_CERTS;
  if (nodeExtra) {
    try {
      cas.push(readFileSync(nodeExtra, 'utf8'));
    } catch {
      // Node warns about it at start-up already
    }
  }
  if (extraCaFile) {
    let pem: string;
    try {
      pem = readFileSync(extraCaFile, 'utf8');
    } catch (err) {
      throw new Error(`cannot read CA file ${extraCaFile}: ${(err as Error).message}`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`CA file ${extraCaFile} holds no PEM certificate`);
    cas.push(pem);
  }
  return cas;
}
