import * as k8s from '@kubernetes/client-node';
import { disruptionCommand } from '../../cli/disruption-command.js';
import type { ConsolidationDryRun } from '../../provisioner/disruption/consolidation-dry-run.js';
import { listClaims, poolNodes } from './disruption-support.js';
import type { ProductStack } from './product-stack.js';

export interface ConsolidationPoolOptions {
  readonly types: readonly string[];
  readonly minSavings?: string;
  readonly budgetNodes?: string;
  /** Default `WhenEmptyOrUnderutilized`. */
  readonly policy?: 'WhenEmpty' | 'WhenEmptyOrUnderutilized';
  /** Default on-demand only. */
  readonly capacityTypes?: readonly string[];
}

/**
 * A NodePool of its own for a consolidation scenario: on-demand unless told, only these instance types, tainted so
 * only its pods land there, `WhenEmptyOrUnderutilized` (or the given policy) after 15 s, and the minimum-saving
 * annotation and a budget when given (Karpenter's default budget, 10% of the nodes rounded up, lets a pool of 3 lose
 * one node at a time: no multi-node batch).
 */
export function consolidationPoolYaml(product: ProductStack, name: string, options: ConsolidationPoolOptions): string {
  const requirements = [
    `\n        - { key: karpenter.sh/capacity-type, operator: In, values: [${(options.capacityTypes ?? ['on-demand']).join(', ')}] }`,
    `\n        - { key: node.kubernetes.io/instance-type, operator: In, values: [${options.types.join(', ')}] }`,
  ].join('');
  const spec = [
    `      taints: [{ key: nodesmith.test/scenario, value: ${name}, effect: NoSchedule }]`,
    '  disruption:',
    `    consolidationPolicy: ${options.policy ?? 'WhenEmptyOrUnderutilized'}`,
    '    consolidateAfter: 15s',
    ...(options.budgetNodes === undefined ? [] : [`    budgets: [{ nodes: "${options.budgetNodes}" }]`]),
  ].join('\n');
  const yaml = product.nodePoolYaml(name, requirements, spec);
  if (options.minSavings === undefined) return yaml;
  // The NodePool is the second document; its metadata is the last `metadata: { name: … }`.
  const at = yaml.lastIndexOf(`metadata: { name: ${name} }`);
  return `${yaml.slice(0, at)}metadata: { name: ${name}, annotations: { nodesmith.io/consolidation-min-savings: "${options.minSavings}" } }${yaml.slice(at + `metadata: { name: ${name} }`.length)}`;
}

/** Pods of an app that are not terminating, with their nodes. */
export async function livePods(product: ProductStack, app: string): Promise<k8s.V1Pod[]> {
  const pods = (await product.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items;
  return pods.filter((p) => p.metadata?.deletionTimestamp === undefined);
}

/**
 * Marks one pod per node with a high `controller.kubernetes.io/pod-deletion-cost`, so that scaling the Deployment
 * down to the number of nodes leaves each node exactly one pod: underutilised, none empty (emptiness would take an
 * empty node before consolidation looks at it). Returns the node names.
 */
export async function keepOnePodPerNode(product: ProductStack, app: string): Promise<string[]> {
  const byNode = new Map<string, string>();
  for (const pod of await livePods(product, app)) {
    const node = pod.spec?.nodeName;
    if (node !== undefined && !byNode.has(node)) byNode.set(node, pod.metadata?.name ?? '');
  }
  for (const name of byNode.values()) {
    await product.core.patchNamespacedPod(
      { name, namespace: 'default', body: { metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '1000' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }
  return [...byNode.keys()];
}

export async function annotatePod(product: ProductStack, name: string, annotations: Record<string, string | null>): Promise<void> {
  await product.core.patchNamespacedPod(
    { name, namespace: 'default', body: { metadata: { annotations } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

/** Events of this reason about these objects (NodeClaims and Nodes are recorded in `default`). */
export async function eventsAbout(product: ProductStack, reason: string, names: readonly string[]): Promise<k8s.CoreV1Event[]> {
  const events = (await product.core.listNamespacedEvent({ namespace: 'default', fieldSelector: `reason=${reason}` })).items;
  return events.filter((e) => names.includes(e.involvedObject.name ?? ''));
}

/** The NodeClaims of a pool that are not being deleted, and the names of their real nodes. */
export async function liveClaims(product: ProductStack, pool: string): Promise<{ claims: string[]; nodes: string[] }> {
  const claims = (await listClaims(product)).filter((c) => c.nodePool === pool && !c.deleting);
  const real = new Set((await poolNodes(product, pool)).map((n) => n.metadata?.name ?? ''));
  return { claims: claims.map((c) => c.name), nodes: claims.map((c) => c.nodeName ?? '').filter((n) => real.has(n)) };
}

/** The value of one sample of a Prometheus text exposition, 0 when absent. */
export function sampleValue(text: string, name: string, labels: Readonly<Record<string, string>>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const [series = '', value = ''] = line.split(/ (?=[^ ]+$)/);
    if (Object.entries(labels).every(([k, v]) => series.includes(`${k}="${v}"`))) return Number(value);
  }
  return 0;
}

/** `nodesmith disruption --kubeconfig … --output json`: the dry run, on the controller's code, against this cluster. */
export async function dryRun(product: ProductStack): Promise<ConsolidationDryRun> {
  let out = '';
  let err = '';
  const code = await disruptionCommand.run(['--kubeconfig', product.stack.kubeconfigPath, '--output', 'json', '--region', product.moto.region], {
    stdout: (s) => { out += s; }, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined), env: {},
  });
  if (code !== 0) throw new Error(`nodesmith disruption exited ${String(code)}: ${err}`);
  return JSON.parse(out) as ConsolidationDryRun;
}
