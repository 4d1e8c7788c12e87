import type * as k8s from '@kubernetes/client-node';
import type { ProductStack } from './product-stack.js';

/**
 * Each scenario gets its own tainted NodePool and pods that tolerate only that taint, so it launches its
 * own nodes: free room left on another scenario's nodes never hides whether this one launched right.
 */
export function scenarioToleration(name: string): k8s.V1Toleration[] {
  return [{ key: 'nodesmith.test/scenario', operator: 'Equal', value: name, effect: 'NoSchedule' }];
}

export async function applyScenarioPool(product: ProductStack, name: string, options: { requirements?: string; limits?: string } = {}): Promise<void> {
  const taints = `      taints: [{ key: nodesmith.test/scenario, value: ${name}, effect: NoSchedule }]`;
  const limits = options.limits === undefined ? '' : `\n  limits: ${options.limits}`;
  await product.apply(product.nodePoolYaml(name, options.requirements ?? '', `${taints}${limits}`));
}

/** The instance types of the nodes a set of pods landed on. */
export function nodeTypes(nodes: ReadonlyMap<string, k8s.V1Node>): string[] {
  return [...nodes.values()].map((n) => n.metadata?.labels?.['node.kubernetes.io/instance-type'] ?? '?');
}

export async function podEvents(product: ProductStack, pod: string): Promise<k8s.CoreV1Event[]> {
  const list = await product.core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${pod}` });
  return list.items;
}
