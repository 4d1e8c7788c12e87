import { Agent, type RequestOptions } from 'node:https';
import * as k8s from '@kubernetes/client-node';

type RequestContext = Parameters<k8s.KubeConfig['applySecurityAuthentication']>[0];

/** Credentials as text for the cache key (PEM strings or Buffers, possibly lists). */
function pem(value: RequestOptions['ca'] | RequestOptions['key']): string {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.map((v) => (typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('base64') : JSON.stringify(v ?? null))).join('|');
}

/**
 * A KubeConfig whose API calls reuse TLS connections. client-node 1.x builds a new https.Agent for every
 * request, so each call (every bind on the extender's hot path) paid a full TLS handshake. Agents are
 * cached by server and credentials, so rotated client certificates still get a fresh agent; proxies and
 * plain-HTTP servers keep the library's own behaviour.
 */
export class KeepAliveKubeConfig extends k8s.KubeConfig {
  readonly #agents = new Map<string, Agent>();

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const cluster = this.getCurrentCluster();
    if (cluster === null || cluster.proxyUrl !== undefined || !cluster.server.startsWith('https:')) return;
    const tls: RequestOptions = {};
    await this.applyToHTTPSOptions(tls);
    const key = JSON.stringify([cluster.server, pem(tls.ca), pem(tls.cert), pem(tls.key), cluster.skipTLSVerify, cluster.tlsServerName]);
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      agent = new Agent({
        keepAlive: true, maxSockets: 64,
        ...(tls.ca === undefined ? {} : { ca: tls.ca }), ...(tls.cert === undefined ? {} : { cert: tls.cert }), ...(tls.key === undefined ? {} : { key: tls.key }),
        ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
        ...(cluster.tlsServerName === undefined ? {} : { servername: cluster.tlsServerName }),
      });
      this.#agents.set(key, agent);
    }
    context.setAgent(agent);
  }
}

/** Loads a kubeconfig file, or the in-cluster/default configuration, into a connection-reusing KubeConfig. */
export function loadKubeConfig(path: string | undefined): KeepAliveKubeConfig {
  const kc = new KeepAliveKubeConfig();
  if (path === undefined) kc.loadFromDefault();
  else kc.loadFromFile(path);
  return kc;
}
