import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { startProductStack, type ProductStack } from '../e2e/product-stack.js';
import { waitFor } from '../stack/wait-for.js';
import { userRequests } from './audit-requests.js';
import { byVerb, requestsBetween, requestTotals } from './api-request-totals.js';
import type { Bench } from './bench.js';

const identity = 'nodesmith-bench';

async function createInChunks<T>(items: readonly T[], create: (item: T) => Promise<unknown>, chunk = 25): Promise<void> {
  for (let i = 0; i < items.length; i += chunk) await Promise.all(items.slice(i, i + chunk).map(create));
}

function kwokNode(name: string): k8s.V1Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': 'us-east-1a', 'node.kubernetes.io/instance-type': 'm7i.4xlarge' } },
    status: { capacity: { cpu: '16', memory: '64Gi', pods: '110' }, allocatable: { cpu: '16', memory: '64Gi', pods: '110' } },
  };
}

function boundPod(name: string, nodeName: string): k8s.V1Pod {
  return {
    metadata: { name, namespace: 'default', labels: { app: 'idle' } },
    spec: { nodeName, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
  };
}

async function settle(product: ProductStack, nodes: number, pods: number): Promise<void> {
  await createInChunks(Array.from({ length: nodes }, (_, i) => `kwok-idle-${String(i)}`), (name) => product.core.createNode({ body: kwokNode(name) }));
  const names = Array.from({ length: pods }, (_, i) => ({ pod: `idle-${String(i)}`, node: `kwok-idle-${String(i % nodes)}` }));
  await createInChunks(names, ({ pod, node }) => product.core.createNamespacedPod({ namespace: 'default', body: boundPod(pod, node) }));
  await waitFor(`${String(pods)} pods Running`, async () => {
    const list = await product.core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=idle' });
    return list.items.filter((p) => p.status?.phase === 'Running').length === pods ? true : undefined;
  }, { timeoutMs: 600_000, intervalMs: 2_000 });
}

/**
 * A steady, idle cluster (100 kwok nodes, 1,000 Running pods, one NodePool) with nodesmith running: every API
 * request nodesmith makes over the window, from the API server's audit log (nodesmith has a client certificate of
 * its own), by verb and resource. Also the API server's apiserver_request_total over the window, all clients.
 */
export const apiIdleBench: Bench = {
  name: 'api-idle',
  async run({ write, flag }): Promise<void> {
    const windowS = Number(flag('--window-s') ?? '300');
    const nodes = Number(flag('--nodes') ?? '100');
    const pods = Number(flag('--pods') ?? '1000');
    const product = await startProductStack({ childProcess: true, compiled: true, audit: true, identity });
    try {
      await product.apply(product.nodePoolYaml('idle'));
      await settle(product, nodes, pods);
      // Let start-up traffic (initial lists, status writes) pass before the window opens.
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      const audit = join(product.stack.dir, 'audit.log');
      const offset = (await stat(audit)).size;
      const before = await requestTotals(product, byVerb);
      write(`api-idle: ${String(nodes)} nodes, ${String(pods)} pods Running; watching nodesmith's requests for ${String(windowS)} s\n`);
      await new Promise((resolve) => setTimeout(resolve, windowS * 1000));
      await new Promise((resolve) => setTimeout(resolve, 2_000)); // the audit batch flushes every second
      const after = await requestTotals(product, byVerb);
      const { byKind: mine, total } = await userRequests(audit, offset, identity);
      write(`  nodesmith (audit log, user ${identity}): ${String(total)} requests in ${String(windowS)} s\n`);
      for (const [kind, n] of mine) write(`    ${kind.padEnd(44)} ${String(n).padStart(6)}\n`);
      const lists = mine.filter(([kind]) => kind.startsWith('list ')).reduce((sum, [, n]) => sum + n, 0);
      write(`  nodesmith LIST requests: ${String(lists)}\n`);
      const verbs = requestsBetween(before, after).map(([verb, n]) => `${verb} ${String(n)}`).join(', ');
      write(`  apiserver_request_total over the window, all clients, by verb: ${verbs}\n`);
    } finally {
      await product.stop();
    }
  },
};
