import type { KubeCredentials, KubeTarget } from '../../provisioner/kube/kube-config.js';

/** A target with a fixed bearer token, for loopback test servers. */
export function staticTarget(server: string, token: string): KubeTarget {
  return { server, insecureSkipTlsVerify: true, source: 'test', credentials: () => Promise.resolve({ headers: { authorization: `Bearer ${token}` } }), invalidate: () => undefined };
}

/** A target whose bearer token the test can rotate, as a token file or an exec plugin would; counts reads and 401 invalidations. */
export class RotatingTokenTarget implements KubeTarget {
  readonly server: string;
  readonly insecureSkipTlsVerify = true;
  readonly source = 'test';
  token = 'first';
  reads = 0;
  invalidations = 0;

  constructor(server: string) {
    this.server = server;
  }

  credentials(): Promise<KubeCredentials> {
    this.reads++;
    return Promise.resolve({ headers: { authorization: `Bearer ${this.token}` } });
  }

  invalidate(): void {
    this.invalidations++;
  }
}
