import { join } from 'node:path';
import type { NodesmithConfig } from '../../cli/app-config.js';
import { freePort } from '../stack/free-port.js';
import { httpsStatus } from '../stack/https-probe.js';
import { startServiceProxy, type ServiceProxy } from '../stack/service-proxy.js';
import { NodesmithProcess } from './nodesmith-process.js';

/** One `nodesmith run` replica of a ReplicaSet, as a child process with ports of its own. */
export interface Replica {
  /** Its pod name (POD_NAME, as the chart sets it): the Lease's holderIdentity is this name and a random suffix. */
  readonly podName: string;
  readonly healthUrl: string;
  readonly extenderUrl: string;
  readonly webhookPort: number;
  readonly process: NodesmithProcess;
}

/** Whether this replica holds the Lease `holderIdentity` names. */
export function holds(replica: Replica, holderIdentity: string | undefined): boolean {
  return holderIdentity?.startsWith(`${replica.podName}-`) === true;
}

/** Several replicas behind two "Services" (service-proxy.ts): the extender's and the webhooks'. */
export interface ReplicaSet {
  readonly replicas: readonly Replica[];
  readonly extenderService: ServiceProxy;
  readonly webhookService: ServiceProxy;
  stop(): Promise<void>;
}

/** The config of a replica: its own ports, nothing else changed. */
async function replicaConfig(base: NodesmithConfig): Promise<NodesmithConfig> {
  return {
    ...base,
    // As the chart's $POD_IP: the leader publishes its extender's URL on the Lease and the others hand it their binds.
    extender: { ...base.extender, port: await freePort(), peerHost: '127.0.0.1' },
    webhooks: { ...base.webhooks, port: await freePort() },
    health: { ...base.health, port: await freePort() },
  };
}

/**
 * `count` replicas of the controller as the chart runs them: all Ready once synced, one leading. kube-scheduler and
 * the API server reach them through the proxies, which route only to replicas whose readiness probe passes (the
 * chart's probe: the extender's /readyz).
 */
export interface ReplicaSetOptions {
  readonly count: number;
  readonly logDir: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** The CA of the webhook certificate, for the webhooks' readiness probe. */
  readonly caCert: Buffer;
  /** Run the build in dist/ (NodesmithProcess's `compiled`), for memory figures. */
  readonly compiled?: boolean;
}

export async function startReplicaSet(base: NodesmithConfig, options: ReplicaSetOptions): Promise<ReplicaSet> {
  const { count, logDir, credentials, caCert, compiled = false } = options;
  const replicas: Replica[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const config = await replicaConfig(base);
      const podName = `nodesmith-${String(index)}`;
      const process = new NodesmithProcess(config, join(logDir, `${podName}.log`), credentials, { compiled, env: { POD_NAME: podName } });
      await process.start();
      replicas.push({
        podName, process, webhookPort: config.webhooks.port,
        healthUrl: `http://127.0.0.1:${String(config.health.port)}`, extenderUrl: `http://127.0.0.1:${String(config.extender.port)}`,
      });
    }
  } catch (error) {
    await Promise.all(replicas.map((r) => r.process.stop()));
    throw error;
  }
  const probeMs = 1000;
  const extenderService = await startServiceProxy(replicas.map((r) => ({ port: Number(new URL(r.extenderUrl).port), isReady: async () => (await fetch(`${r.extenderUrl}/readyz`)).ok })), probeMs);
  const webhookService = await startServiceProxy(replicas.map(({ webhookPort: port }) => ({ port, isReady: async () => (await httpsStatus(`https://127.0.0.1:${String(port)}/readyz`, { ca: caCert })) === 200 })), probeMs);
  return {
    replicas, extenderService, webhookService,
    stop: async () => {
      await extenderService.stop();
      await webhookService.stop();
      await Promise.all(replicas.map((r) => r.process.stop()));
    },
  };
}
