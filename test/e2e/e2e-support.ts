import * as k8s from '@kubernetes/client-node';
import type { Test } from 'tap';
import { EC2Client, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import { podRequests } from '../../domain/pod-requests.js';
import { formatAmount } from '../../domain/quantity.js';
import { parseResourceList } from '../../domain/resource-list.js';
import { projectPod } from '../../provisioner/kube/projection.js';
import { toWire } from '../support/wire.js';
import { waitFor } from '../stack/wait-for.js';
import type { ProductStack, ProductStackOptions } from './product-stack.js';
import { clusterName, startProductStack } from './product-stack.js';

/** Starts the product on the real stack for one test file; prints every log when the test failed. */
export async function withProduct(t: Test, options: ProductStackOptions = {}): Promise<ProductStack> {
  const product = await startProductStack(options);
  t.teardown(async () => {
    if (!t.passing()) t.comment(`logs (${product.stack.dir}):\n${product.logTails()}`);
    await product.stop();
  });
  return product;
}

export interface DeploymentSpec {
  name: string;
  replicas: number;
  cpu?: string;
  memory?: string;
  nodeSelector?: Record<string, string>;
  affinity?: k8s.V1Affinity;
  topologySpreadConstraints?: k8s.V1TopologySpreadConstraint[];
  annotations?: Record<string, string>;
  tolerations?: k8s.V1Toleration[];
  resources?: Record<string, string>;
}

export function deployment(spec: DeploymentSpec): k8s.V1Deployment {
  const labels = { app: spec.name };
  return {
    metadata: { name: spec.name, namespace: 'default' },
    spec: {
      replicas: spec.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, ...(spec.annotations ? { annotations: spec.annotations } : {}) },
        spec: {
          terminationGracePeriodSeconds: 0,
          // Extended resources (GPUs) cannot be overcommitted: Kubernetes wants them as limits too.
          containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: spec.cpu ?? '500m', memory: spec.memory ?? '512Mi', ...(spec.resources ?? {}) }, ...(spec.resources ? { limits: spec.resources } : {}) } }],
          ...(spec.nodeSelector ? { nodeSelector: spec.nodeSelector } : {}),
          ...(spec.affinity ? { affinity: spec.affinity } : {}),
          ...(spec.topologySpreadConstraints ? { topologySpreadConstraints: spec.topologySpreadConstraints } : {}),
          ...(spec.tolerations ? { tolerations: spec.tolerations } : {}),
        },
      },
    },
  };
}

/** Waits until every pod with app=<name> is Running and bound; returns them with their nodes. */
export async function waitForRunning(product: ProductStack, app: string, count: number, timeoutMs = 180_000): Promise<{ pods: k8s.V1Pod[]; nodes: Map<string, k8s.V1Node> }> {
  // Counted only on nodes that exist when read: a pod listed Running can be on a node already removed (the pod not
  // yet gone from the list), and reading that node failed expiry-drift with a 404 on a slow machine.
  return waitFor(`${String(count)} running pods of ${app}`, async () => {
    const list = await product.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` });
    const running = list.items.filter((p) => p.status?.phase === 'Running' && p.spec?.nodeName);
    if (running.length !== count) return undefined;
    const existing = new Map((await product.core.listNode()).items.map((n) => [n.metadata?.name ?? '', n]));
    const nodes = new Map<string, k8s.V1Node>();
    for (const pod of running) {
      const node = existing.get(pod.spec?.nodeName ?? '');
      if (node === undefined) return undefined;
      nodes.set(node.metadata?.name ?? '', node);
    }
    return { pods: running, nodes };
  }, { timeoutMs, intervalMs: 500 });
}

export interface MotoInstance { id: string; type: string; zone: string; lifecycle: string; state: string; tags: Record<string, string> }

/** Every instance moto holds for our cluster, read with the unmodified SDK. */
export async function listInstances(product: ProductStack): Promise<MotoInstance[]> {
  const ec2 = new EC2Client({ region: product.moto.region, endpoint: product.moto.endpoint, credentials: product.moto.credentials });
  try {
    // Paginated, 1,000 reservations a page (EC2's most; moto's default is 100): moto filters every instance it ever
    // launched for each page, which at 10,000 pods and 1,500 instances made one listing take minutes.
    const reservations = [];
    for await (const page of paginateDescribeInstances({ client: ec2, pageSize: 1000 }, { Filters: [{ Name: `tag:kubernetes.io/cluster/${clusterName}`, Values: ['owned'] }] })) {
      reservations.push(...(page.Reservations ?? []));
    }
    return reservations.flatMap((r) => r.Instances ?? []).map((i) => ({
      id: i.InstanceId ?? '', type: i.InstanceType ?? '', zone: i.Placement?.AvailabilityZone ?? '', lifecycle: i.InstanceLifecycle ?? 'on-demand', state: i.State?.Name ?? '',
      tags: Object.fromEntries((i.Tags ?? []).map((tag) => [tag.Key ?? '', tag.Value ?? ''])),
    }));
  } finally {
    ec2.destroy();
  }
}

export async function createDeployment(product: ProductStack, spec: DeploymentSpec): Promise<void> {
  await product.kc.makeApiClient(k8s.AppsV1Api).createNamespacedDeployment({ namespace: 'default', body: deployment(spec) });
}

/**
 * Every real node whose bound, unfinished pods request more CPU, memory or pod slots than it has allocatable, as
 * "node: cpu 76750m requested, 47810m allocatable". kwok admits anything, so only this check would notice a
 * kubelet on a real node refusing pods with OutOfcpu.
 */
export async function overcommittedNodes(product: Pick<ProductStack, 'core'>): Promise<string[]> {
  return overcommittedOf((await product.core.listNode()).items, (await product.core.listPodForAllNamespaces()).items);
}

/** The same check over lists a caller already holds (a bench's sample lists once for all its checks). */
export function overcommittedOf(allNodes: readonly k8s.V1Node[], pods: readonly k8s.V1Pod[]): string[] {
  const nodes = allNodes.filter((n) => n.metadata?.labels?.['nodesmith.io/launchable'] === undefined);
  const requested = requestsByNode(pods);
  const problems: string[] = [];
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    const allocatable = parseResourceList(node.status?.allocatable);
    for (const resource of ['cpu', 'memory', 'pods']) {
      const wanted = requested.get(name)?.[resource] ?? 0;
      const have = allocatable[resource] ?? 0;
      if (wanted > have) problems.push(`${name}: ${resource} ${formatAmount(resource, wanted)} requested, ${formatAmount(resource, have)} allocatable`);
    }
  }
  return problems;
}

/** Summed requests of the bound, unfinished pods per node. */
function requestsByNode(pods: readonly k8s.V1Pod[]): Map<string, Record<string, number>> {
  const requested = new Map<string, Record<string, number>>();
  for (const pod of pods) {
    const nodeName = pod.spec?.nodeName;
    if (nodeName === undefined || nodeName === '' || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    const sums = requested.get(nodeName) ?? {};
    for (const [resource, amount] of Object.entries(podRequests(projectPod(toWire(pod))))) sums[resource] = (sums[resource] ?? 0) + amount;
    requested.set(nodeName, sums);
  }
  return requested;
}

/**
 * Waits until the NodePool reports Ready=True (its EC2NodeClass resolved, as nodesmith only plans for a ready pool);
 * resolves with the seconds it took. A burst measured from the apply would count the class's discovery as the burst's.
 */
export async function waitForNodePoolReady(product: ProductStack, name: string, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  const custom = product.kc.makeApiClient(k8s.CustomObjectsApi);
  await waitFor(`NodePool ${name} to be Ready`, async () => {
    const pool = (await custom.getClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name })) as { status?: { conditions?: { type: string; status: string }[] } };
    return pool.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? true : undefined;
  }, { timeoutMs, intervalMs: 200 });
  return (Date.now() - started) / 1000;
}
