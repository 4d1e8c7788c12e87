import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** File paths of the test cluster's certificates and keys. */
export interface Pki {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

async function openssl(args: readonly string[], cwd: string): Promise<void> {
  await run('openssl', args, { cwd });
}

/** Issues a certificate signed by the test CA; `subject` is an openssl -subj string. */
export async function issueCertificate(
  dir: string,
  name: string,
  options: { subject: string; caCert: string; caKey: string; altNames?: readonly string[]; days?: number },
): Promise<{ cert: string; key: string }> {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.crt`);
  const ext = join(dir, `${name}.ext`);
  const san = options.altNames?.length ? `subjectAltName=${options.altNames.join(',')}\n` : '';
  await writeFile(ext, `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n${san}`);
  await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', csr, '-subj', options.subject], dir);
  await openssl(['x509', '-req', '-in', csr, '-CA', options.caCert, '-CAkey', options.caKey, '-CAcreateserial', '-out', cert, '-days', String(options.days ?? 30), '-extfile', ext], dir);
  return { cert, key };
}

/**
 * A CA of its own beside the cluster's, for a component that checks the CA it is given by rules of its own: an RSA
 * key in PKCS#1 ("RSA PRIVATE KEY", the only form cert-controller's rotator parses) and `altNames` on the CA itself.
 */
export async function createRsaAuthority(
  dir: string,
  name: string,
  options: { subject: string; altNames: readonly string[]; days: number },
): Promise<{ cert: string; key: string }> {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  await openssl(['genrsa', '-traditional', '-out', key, '2048'], dir);
  await openssl(['req', '-x509', '-new', '-key', key, '-out', cert, '-days', String(options.days), '-subj', options.subject, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature,keyEncipherment', '-addext', `subjectAltName=${options.altNames.join(',')}`], dir);
  return { cert, key };
}

/** Creates a CA, the API server's serving certificate, an admin client certificate and SA keys. */
export async function createPki(dir: string): Promise<Pki> {
  const caKey = join(dir, 'ca.key');
  const caCert = join(dir, 'ca.crt');
  await openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', caKey, '-out', caCert, '-days', '30', '-subj', '/CN=nodesmith-test-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature'], dir);
  const server = await issueCertificate(dir, 'apiserver', {
    subject: '/CN=kube-apiserver', caCert, caKey,
    altNames: ['IP:127.0.0.1', 'DNS:localhost', 'IP:10.0.0.1', 'DNS:kubernetes', 'DNS:kubernetes.default', 'DNS:kubernetes.default.svc'],
  });
  const admin = await issueCertificate(dir, 'admin', { subject: '/O=system:masters/CN=nodesmith-test-admin', caCert, caKey });
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPub = join(dir, 'sa.pub');
  await openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', serviceAccountKey], dir);
  await openssl(['pkey', '-in', serviceAccountKey, '-pubout', '-out', serviceAccountPub], dir);
  return { caCert, caKey, serverCert: server.cert, serverKey: server.key, adminCert: admin.cert, adminKey: admin.key, serviceAccountKey, serviceAccountPub };
}
