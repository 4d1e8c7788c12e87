import * as k8s from '@kubernetes/client-node';
import { listInstances, type MotoInstance } from './e2e-support.js';
import type { ProductStack } from './product-stack.js';

export interface ClaimView {
  readonly name: string;
  readonly nodePool: string;
  readonly nodeName: string | undefined;
  readonly instanceId: string | undefined;
  readonly deleting: boolean;
  readonly conditions: readonly { type: string; status: string; reason?: string }[];
}

export async function listClaims(product: ProductStack): Promise<ClaimView[]> {
  const list = (await product.kc.makeApiClient(k8s.CustomObjectsApi).listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as {
    items: { metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string }; status?: { nodeName?: string; providerID?: string; conditions?: { type: string; status: string; reason?: string }[] } }[];
  };
  return list.items.map((c) => ({
    name: c.metadata.name,
    nodePool: c.metadata.labels?.['karpenter.sh/nodepool'] ?? '',
    nodeName: c.status?.nodeName,
    instanceId: c.status?.providerID?.split('/').at(-1),
    deleting: c.metadata.deletionTimestamp !== undefined,
    conditions: c.status?.conditions ?? [],
  }));
}

/** Real (launched) nodes of a NodePool. */
export async function poolNodes(product: ProductStack, pool: string): Promise<k8s.V1Node[]> {
  return (await product.core.listNode({ labelSelector: `karpenter.sh/nodepool=${pool},!nodesmith.io/launchable` })).items;
}

export function isDisruptedTaint(node: k8s.V1Node): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === 'karpenter.sh/disrupted');
}

export async function scaleDeployment(product: ProductStack, name: string, replicas: number): Promise<void> {
  await product.kc.makeApiClient(k8s.AppsV1Api).patchNamespacedDeploymentScale(
    { name, namespace: 'default', body: { spec: { replicas } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

/** A NodePool of its own (tainted so only its pods land there) with a `spec.disruption` block. */
export async function applyDisruptionPool(product: ProductStack, name: string, disruption: string, templateLabels = ''): Promise<void> {
  const taints = `      taints: [{ key: nodesmith.test/scenario, value: ${name}, effect: NoSchedule }]`;
  const labels = templateLabels === '' ? '' : `\n    metadata: { labels: { ${templateLabels} } }`;
  const yaml = product.nodePoolYaml(name, '\n        - { key: karpenter.sh/capacity-type, operator: In, values: [on-demand] }', `${taints}\n  disruption:\n${disruption}`);
  // The template's metadata goes under spec.template, beside its spec.
  await product.apply(labels === '' ? yaml : yaml.replace('  template:\n', `  template:${labels}\n`));
}

export function scenarioPods(name: string): { tolerations: k8s.V1Toleration[]; nodeSelector: Record<string, string> } {
  return { tolerations: [{ key: 'nodesmith.test/scenario', operator: 'Equal', value: name, effect: 'NoSchedule' }], nodeSelector: { 'karpenter.sh/nodepool': name } };
}

/** Instances running in moto that no NodeClaim names: a leak. */
export async function leakedInstances(product: ProductStack): Promise<MotoInstance[]> {
  const claimed = new Set((await listClaims(product)).map((c) => c.instanceId));
  return (await listInstances(product)).filter((i) => (i.state === 'running' || i.state === 'pending') && !claimed.has(i.id));
}

/** NodeClaims with more than one live instance: a duplicate launch. */
export async function duplicatedClaims(product: ProductStack): Promise<string[]> {
  const count = new Map<string, number>();
  for (const i of await listInstances(product)) {
    if (i.state !== 'running' && i.state !== 'pending') continue;
    const claim = i.tags['karpenter.sh/nodeclaim'] ?? '?';
    count.set(claim, (count.get(claim) ?? 0) + 1);
  }
  return [...count].filter(([, n]) => n > 1).map(([claim]) => claim);
}

/** Available (Running, Ready, not terminating) pods of an app. */
export async function availablePods(product: ProductStack, app: string): Promise<number> {
  const pods = (await product.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items;
  return pods.filter((p) => p.metadata?.deletionTimestamp === undefined && p.status?.phase === 'Running'
    && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length;
}
