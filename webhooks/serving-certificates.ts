import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const dayMs = 86_400_000;

export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

export interface ServingCertificates {
  readonly ca: PemPair;
  readonly serving: PemPair;
}

export interface CertificateRequest {
  /** Service DNS names and IPs the API server will dial (e.g. nodesmith-webhooks.nodesmith.svc). */
  readonly dnsNames: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly validDays: number;
  /** Injected so tests and offline runs are reproducible; main passes the wall clock. */
  readonly now: Date;
}

async function pemKey(key: CryptoKey): Promise<string> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');
}

async function createAuthority(notBefore: Date, notAfter: Date): Promise<{ cert: x509.X509Certificate; keys: CryptoKeyPair }> {
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(), name: 'CN=nodesmith-webhook-ca', notBefore, notAfter, keys, signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys };
}

/** A fresh CA and a serving certificate signed by it, for the webhook Service (caBundle = ca.cert). */
export async function createServingCertificates(request: CertificateRequest): Promise<ServingCertificates> {
  // Backdated a little: the API server's clock may trail ours.
  const notBefore = new Date(request.now.getTime() - 5 * 60_000);
  const notAfter = new Date(request.now.getTime() + request.validDays * dayMs);
  const ca = await createAuthority(notBefore, notAfter);
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const names = [
    ...request.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...(request.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(), subject: `CN=${request.dnsNames[0] ?? 'nodesmith-webhooks'}`, issuer: ca.cert.subject,
    notBefore, notAfter, signingKey: ca.keys.privateKey, publicKey: keys.publicKey, signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  return {
    ca: { cert: ca.cert.toString('pem'), key: await pemKey(ca.keys.privateKey) },
    serving: { cert: cert.toString('pem'), key: await pemKey(keys.privateKey) },
  };
}

/** The DNS names a Service answers to inside the cluster. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [`${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`, `${service}.${namespace}`, service];
}
