import { join } from 'node:path';
import { issueCertificate } from '../stack/pki.js';
import { startServiceProxy, type ServiceProxy } from '../stack/service-proxy.js';
import { writeKubeconfig } from '../stack/kubeconfig.js';
import type { Stack } from '../stack/stack.js';

/** How nodesmith reaches the API server: whose identity, and whether through a Service whose connections can be reset. */
export interface NodesmithApiAccess {
  readonly kubeconfig: string;
  /** The "kubernetes" Service in front of the API server, when asked for (resets its connections: watches dropped). */
  readonly apiService: ServiceProxy | undefined;
}

/**
 * nodesmith's kubeconfig. `identity` gives it a user of its own (in system:masters like the admin), so its requests
 * can be told apart in the audit log; `viaService` routes it through a TCP proxy, as a pod reaches the API server
 * through the kubernetes Service, so that a test can cut its connections (the server's certificate names
 * 127.0.0.1, so TLS passes through unchanged).
 */
export async function nodesmithApiAccess(stack: Stack, options: { readonly identity?: string; readonly viaService?: boolean }): Promise<NodesmithApiAccess> {
  if (options.identity === undefined && options.viaService !== true) return { kubeconfig: stack.kubeconfigPath, apiService: undefined };
  const port = Number(new URL(stack.server).port);
  const apiService = options.viaService === true ? await startServiceProxy([{ port, isReady: () => Promise.resolve(true) }]) : undefined;
  const server = apiService === undefined ? stack.server : `https://127.0.0.1:${String(apiService.port)}`;
  const user = options.identity ?? 'admin';
  const cert = options.identity === undefined
    ? { cert: stack.pki.adminCert, key: stack.pki.adminKey }
    : await issueCertificate(stack.dir, user, { subject: `/O=system:masters/CN=${user}`, caCert: stack.pki.caCert, caKey: stack.pki.caKey });
  const path = join(stack.dir, `nodesmith-${user}.kubeconfig`);
  await writeKubeconfig(path, { server, caCert: stack.pki.caCert, clientCert: cert.cert, clientKey: cert.key, user });
  return { kubeconfig: path, apiService };
}
