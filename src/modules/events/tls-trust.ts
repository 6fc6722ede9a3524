import { existsSync, readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/** Where Debian/Ubuntu and RHEL-family systems keep the system CA bundle. */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

/**
 * The CA list for outgoing TLS: Node's bundled roots, the system bundle (which
 * carries CAs an administrator installed with update-ca-certificates), and an
 * optional extra PEM file. Passing `ca` to Node replaces its defaults, so all
 * three are joined here. Throws with the file name when the extra file cannot be read.
 */
export function trustedCAs(extraCaFile: string): string[] {
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
